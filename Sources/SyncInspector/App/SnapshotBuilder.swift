import SyncCore
import SyncServer
import SyncSimulation

/// Builds the panes' rows from what the server said (a ``ServerReading``)
/// and what the focused device holds. No I/O and no server: the same code
/// for an in-process server and one over HTTP, tested on hand-built readings.
enum SnapshotBuilder {
    /// The zone list: the databases' headings, the zones the server has (with
    /// how the device's token stands), the zones that are gone, and those the
    /// device knows or is about to create.
    static func zones(of device: SimulatedDevice, reading: ServerReading) -> [ZoneListItem] {
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
                serverToken: summary.currentToken, deviceToken: deviceToken, state: .inSync)
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
        var items: [ZoneListItem] = [.header(.private)]
        items += privateZones.sorted(by: order).map(ZoneListItem.zone)
        items.append(.header(.shared))
        items += sharedZones.sorted(by: order).map(ZoneListItem.zone)
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

    /// The selected zone's rows: the server's records (as read) merged with
    /// the device's cached copies, by name in ``NaturalOrder``.
    static func records(of zone: ZoneEntry, device: SimulatedDevice, reading: ServerReading) -> [RecordRow] {
        // Names sort as a person reads them (note-2 before note-10): see ``NaturalOrder``.
        // Lists already in that order (zero-padded names) cost one pass.
        func natural(_ records: [Record]) -> [Record] {
            NaturalOrder.sorted(records) { $0.recordID.recordName }
        }
        let serverRecords: [Record] = if zone.recordCount == nil {
            []
        } else if let read = reading.records, read.zone == zone.key {
            read.records
        } else {
            []
        }
        let server = natural(serverRecords)
        let cached: [Record] = zone.scope == .public ? [] : natural(device.cachedRecords(in: zone.zoneID))
        let pending = Set(((try? device.engine.pendingChanges()) ?? [])
            .filter { $0.isRecordChange && $0.zoneID == zone.zoneID }
            .compactMap(\.recordName))
        var rows: [RecordRow] = []
        rows.reserveCapacity(max(server.count, cached.count))
        var s = 0
        var c = 0
        while s < server.count || c < cached.count {
            let serverName = s < server.count ? server[s].recordID.recordName : nil
            let cachedName = c < cached.count ? cached[c].recordID.recordName : nil
            let name: String
            var onServer: Record?
            var onDevice: Record?
            if let serverName, let cachedName, serverName == cachedName {
                name = serverName
                onServer = server[s]
                onDevice = cached[c]
                s += 1
                c += 1
            } else if let serverName, cachedName == nil || NaturalOrder.less(serverName, cachedName!) {
                name = serverName
                onServer = server[s]
                s += 1
            } else if let cachedName {
                name = cachedName
                onDevice = cached[c]
                c += 1
            } else {
                break
            }
            let isPending = pending.contains(name)
            let marker: RecordMarker
            switch (onServer, onDevice) {
            case (let server?, let local?): marker = server.recordChangeTag == local.recordChangeTag ? .same : .changed
            case (_?, nil): marker = isPending ? .same : .new
            case (nil, let local?): marker = local.recordChangeTag == nil && isPending ? .localOnly : .deleted
            case (nil, nil): marker = .same
            }
            rows.append(RecordRow(name: name, server: onServer, device: onDevice, marker: marker, hasPendingChange: isPending))
        }
        return rows
    }

    /// What a fetch from the selected token would return now, as the
    /// rewind pane shows it: each record marked new when the device lacks it.
    static func rewind(_ read: ServerReading.RewindReading, device: SimulatedDevice) -> Rewind {
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
    static func notifications(of device: SimulatedDevice, reading: ServerReading) -> [NotificationEntry] {
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
