import SyncCore
import SyncClient
import SyncWorlds

/// Builds the panes' rows from what the server said (a ``ServerReading``)
/// and what the focused device holds. No I/O and no server: the same code
/// for an in-process server and one over HTTP, tested on hand-built readings.
enum SnapshotBuilder {
    /// The zone list: the databases' headings, the zones the server has (with
    /// how the device's token stands), the zones that are gone, and those the
    /// device knows or is about to create.
    static func zones(of device: SyncDevice, reading: ServerReading) -> [ZoneListItem] {
        let user = device.user
        let summaries = reading.zones
        let removed = reading.removed
        let publicZone = reading.publicZone ?? ServerZoneSummary(
            scope: .public, zoneID: .defaultZone(ownerName: user), recordCount: nil, lastSequence: nil, currentToken: nil)
        let pendingZones = Set(((try? device.engine.pendingChanges()) ?? []).filter { $0.kind == .saveZone }.map(\.zoneID))
        var privateZones: [ZoneEntry] = []
        var sharedZones: [ZoneEntry] = []
        var listed = Set<RecordZoneID>()
        for summary in summaries {
            listed.insert(summary.zoneID)
            let deviceToken = summary.zoneID.isDefaultZone ? nil : device.cachedZoneToken(for: summary.zoneID)
            var entry = ZoneEntry(
                scope: summary.scope, zoneID: summary.zoneID, recordCount: summary.recordCount, lastSequence: summary.lastSequence,
                serverToken: summary.currentToken, deviceToken: deviceToken, state: .inSync, shares: summary.shares)
            entry.state = syncState(of: summary, deviceToken: deviceToken, reading: reading)
            (entry.serverThrough, entry.deviceThrough) = positions(of: summary, deviceToken: deviceToken, reading: reading)
            if summary.scope == .private { privateZones.append(entry) } else { sharedZones.append(entry) }
        }
        for zone in removed where !listed.contains(zone.zoneID) {
            listed.insert(zone.zoneID)
            let state: ZoneSyncState = switch zone.reason {
            case .deleted: .deleted
            case .purged: .purged
            case .encryptedDataReset: .reset
            }
            privateZones.append(ZoneEntry(
                scope: .private, zoneID: zone.zoneID, recordCount: nil, lastSequence: nil, serverToken: nil,
                deviceToken: device.cachedZoneToken(for: zone.zoneID), state: pendingZones.contains(zone.zoneID) ? .notSent : state))
        }
        for zoneID in device.knownZones() where !listed.contains(zoneID) {
            listed.insert(zoneID)
            let scope = device.engine.scope(of: zoneID)
            let entry = ZoneEntry(
                scope: scope, zoneID: zoneID, recordCount: nil, lastSequence: nil, serverToken: nil,
                deviceToken: device.cachedZoneToken(for: zoneID), state: pendingZones.contains(zoneID) ? .notSent : .deleted)
            if scope == .private { privateZones.append(entry) } else { sharedZones.append(entry) }
        }
        for zoneID in pendingZones.sorted() where !listed.contains(zoneID) {
            privateZones.append(ZoneEntry(
                scope: .private, zoneID: zoneID, recordCount: nil, lastSequence: nil, serverToken: nil, deviceToken: nil, state: .notSent))
        }
        func order(_ a: ZoneEntry, _ b: ZoneEntry) -> Bool {
            if a.zoneID.isDefaultZone != b.zoneID.isDefaultZone { return !a.zoneID.isDefaultZone }
            return a.zoneID < b.zoneID
        }
        // Each zone, then the lines of its shares.
        func rows(_ entry: ZoneEntry) -> [ZoneListItem] { [.zone(entry)] + ZoneShareLine.lines(of: entry, viewer: user).map(ZoneListItem.share) }
        var items: [ZoneListItem] = [.header(.private)]
        items += privateZones.sorted(by: order).flatMap(rows)
        items.append(.header(.shared))
        items += sharedZones.sorted(by: order).flatMap(rows)
        items.append(.header(.public))
        items.append(.zone(ZoneEntry(
            scope: .public, zoneID: publicZone.zoneID, recordCount: publicZone.recordCount, lastSequence: publicZone.lastSequence,
            serverToken: nil, deviceToken: nil, state: .noChangeFetching)))
        return items
    }

    /// The changes the server's and the device's tokens stand for, where the
    /// observer can read tokens (in process); over HTTP only the server's
    /// latest change is known, when it says.
    static func positions(
        of summary: ServerZoneSummary, deviceToken: ServerChangeToken?, reading: ServerReading
    ) -> (Int64?, Int64?) {
        guard !summary.zoneID.isDefaultZone else { return (nil, nil) }
        return (summary.currentToken.flatMap { reading.positions[$0] } ?? summary.lastSequence,
                deviceToken.flatMap { reading.positions[$0] })
    }

    static func syncState(of summary: ServerZoneSummary, deviceToken: ServerChangeToken?, reading: ServerReading) -> ZoneSyncState {
        if summary.zoneID.isDefaultZone { return .noChangeFetching }
        guard let deviceToken else { return .notFetched(summary.recordCount ?? 0) }
        let key = ServerReading.TokenKey(scope: summary.scope, zoneID: summary.zoneID, token: deviceToken)
        if let pending = reading.pending[key] { return pending == 0 ? .inSync : .behind(pending) }
        if let problem = reading.problems[key] {
            return problem.code == .changeTokenExpired ? .tokenExpired : .tokenRefused(problem.reason)
        }
        // Not read yet (the token just arrived): the next read says.
        return .inSync
    }

    /// The selected zone's rows: `model` (``RecordRowsModel``) brings `list`
    /// up to date with what `reading` answered for it (the changes since it
    /// last looked, or the zone's records) and the device's copies (`copy`,
    /// read by the effect: ``deviceRecords(of:device:reading:model:)``). When
    /// the reading has no answer for what the model needs (the zone was just
    /// selected), the rows wait for the next read.
    static func records(
        _ list: inout RecordList, of zone: ZoneEntry, device: String, copy: RecordRowsDeviceCopy, reading: ServerReading,
        model: inout RecordRowsModel
    ) {
        let (source, mark) = recordsSource(of: zone, device: device)
        model.update(&list, of: source, mark: mark, deviceToken: zone.deviceToken, device: copy) { read in
            answer(read, zone: zone, source: source, reading: reading)
        }
    }

    /// What of `device`'s copy of `zone` the records model will read with
    /// `reading`'s answers: a ``RecordRowsDeviceCopy`` of just that.
    static func deviceRecords(of zone: ZoneEntry, device: SyncDevice, reading: ServerReading, model: RecordRowsModel) -> RecordRowsDeviceCopy {
        let (source, mark) = recordsSource(of: zone, device: device.name)
        let names = model.deviceNamesNeeded(for: source, mark: mark, deviceToken: zone.deviceToken) { read in
            answer(read, zone: zone, source: source, reading: reading)
        }
        return RecordRowsDeviceCopy(copying: SyncDeviceRecords(device: device, zone: zone.key), zone: zone.key, names: names)
    }

    private static func recordsSource(of zone: ZoneEntry, device: String) -> (RecordRowsModel.Source, RecordRowsModel.ServerMark) {
        (RecordRowsModel.Source(zone: zone.key, device: device),
         RecordRowsModel.ServerMark(token: zone.serverToken, lastSequence: zone.lastSequence, recordCount: zone.recordCount))
    }

    /// `reading`'s answer to what the model asks of `zone`.
    private static func answer(_ read: RecordRowsRead, zone: ZoneEntry, source: RecordRowsModel.Source, reading: ServerReading) -> RecordRowsServerAnswer? {
        // A zone the server cannot list (gone, or not counted): the device's copy alone.
        guard zone.recordCount != nil else { return .everything(ZoneRecordsAtPosition(records: [], position: nil)) }
        return reading.records.flatMap { $0.source == source ? $0.answers[read] : nil }
    }

    /// What a fetch from the selected token would return now, as the
    /// rewind pane shows it: each record marked new when the device lacks it.
    static func rewind(_ read: ServerReading.RewindReading, device: SyncDevice) -> Rewind {
        let receipt = read.receipt
        let meaning = read.meaning
        let outcome: Result<([Rewind.Change], Bool), CloudError> = read.result.map { rewind in
            switch rewind {
            case .zone(let batch):
                let changes = batch.changes.map { change -> Rewind.Change in
                    switch change {
                    case .changed(let record): .changed(record.recordID.recordName, type: record.recordType, isNew: false)
                    case .deleted(let id, let type): .deleted(id.recordName, type: type)
                    }
                }
                return (changes, batch.moreComing)
            case .database(let batch):
                let changes = batch.changes.map { change -> Rewind.Change in
                    switch change {
                    case .zoneChanged(let zone): .zoneChanged(zone)
                    case .zoneRemoved(let zone, let reason): .zoneRemoved(zone, reason)
                    }
                }
                return (changes, batch.moreComing)
            }
        }
        switch outcome {
        case .success(let (changes, moreComing)):
            // "New" if the device does not have the record at all.
            let marked = changes.map { change -> Rewind.Change in
                guard case .changed(let name, let type, _) = change, let zone = receipt.zoneID else { return change }
                let cached = (try? device.engine.record(RecordID(recordName: name, zoneID: zone))) ?? nil
                return .changed(name, type: type, isNew: cached == nil)
            }
            return Rewind(receipt: receipt, meaning: meaning, changes: marked, moreComing: moreComing, error: nil)
        case .failure(let error):
            return Rewind(receipt: receipt, meaning: meaning, changes: [], moreComing: false, error: error)
        }
    }

    /// The push feed: notifications on their way first, then the delivered
    /// ones, newest first, with the fetch each triggered and the push faults that hit them.
    static func notifications(of device: SyncDevice, reading: ServerReading) -> [NotificationEntry] {
        let onTheWay = reading.pendingNotifications
        var entries: [NotificationEntry] = onTheWay.map { pending in
            let status: NotificationEntry.Status = switch pending.state {
            case .coalescing(let until): .coalescing(until: until)
            case .inTransit(let at): .inTransit(arrivesAt: at)
            case .heldWhileOffline: .heldWhileOffline
            }
            return NotificationEntry(notification: pending.notification, status: status, fetch: nil, index: nil)
        }
        let runs = device.engine.fetchRuns
        let all = device.notifications
        let first = max(0, all.count - InspectorSnapshot.tokenLimit)
        for index in stride(from: all.count - 1, through: first, by: -1) {
            let received = all[index]
            var run: FetchRun?
            if let id = received.fetchRunID {
                run = runs.indices.contains(id - 1) && runs[id - 1].id == id ? runs[id - 1] : runs.last { $0.id == id }
            }
            entries.append(NotificationEntry(
                notification: received.notification, status: .delivered(at: received.deliveredAt, latency: received.latency),
                fetch: run, index: index))
        }
        return InspectorFaults.markPushFaults(entries, marks: reading.pushFaultMarks)
    }
}
