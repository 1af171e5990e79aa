import SyncCore
import SyncClient
import SyncWorlds

extension ServerObserver {
    /// Reads what `read` asks for in `zone`, as `user` in `environment`.
    public func answer(
        _ read: RecordRowsRead, zone: ZoneKey, user: String, environment: ContainerEnvironment
    ) async throws -> RecordRowsServerAnswer {
        switch read {
        case .everything:
            return .everything(try await recordsAtPosition(in: zone.zoneID, scope: zone.scope, user: user, environment: environment))
        case .changes(let since, let deviceSince):
            let server: ZoneRecordChanges
            switch try await recordChanges(in: zone.zoneID, scope: zone.scope, user: user, environment: environment, since: since) {
            case .success(let changes): server = changes
            case .failure(let error): return .refused(error)
            }
            guard let deviceSince else { return .changes(server: server, device: nil) }
            switch try await recordChanges(
                in: zone.zoneID, scope: zone.scope, user: user, environment: environment, since: deviceSince) {
            case .success(let changes): return .changes(server: server, device: changes)
            case .failure(let error): return .refused(error)
            }
        }
    }
}

/// Keeps the records pane's rows (one per record name: the server's version
/// beside the device's) up to date at the cost of what changed, not of what
/// the zone holds.
///
/// The model remembers the position (a zone change token) through which the
/// server's changes are in its rows, and the device token it last saw. To
/// bring the rows up to date it asks for the changes since that position
/// (`changes/zone` from the token, in process or over HTTP) and for the
/// names the device touched: the changes since the device's previous token
/// when it fetched, and the names its sync events carry (``note(_:device:)``:
/// local saves and deletes, sends, conflicts). Each touched name's row is
/// rebuilt from the server's record and the device's, and moved into place
/// by binary search in the ``RecordRowOrder``.
///
/// It reads everything again only when it must: another zone or device, a
/// position the server refuses (history compacted, zone reset or deleted), a
/// zone dropped or reset on the device, the default and public zones (which
/// have no change tokens) when their summary changed, or ``invalidate()``.
public struct RecordRowsModel: Sendable, Equatable {
    /// Whose rows: one zone, beside one device's copy.
    public struct Source: Hashable, Sendable {
        public var zone: ZoneKey
        public var device: String

        public init(zone: ZoneKey, device: String) {
            self.zone = zone
            self.device = device
        }
    }

    /// How the zone stood on the server, from its summary: while it is the
    /// same, nothing changed there and nothing is read.
    public struct ServerMark: Hashable, Sendable {
        public var token: ServerChangeToken?
        public var lastSequence: Int64?
        public var recordCount: Int?

        public init(token: ServerChangeToken?, lastSequence: Int64?, recordCount: Int?) {
            self.token = token
            self.lastSequence = lastSequence
            self.recordCount = recordCount
        }
    }

    /// Changing the order rebuilds the rows at the next update
    /// (``reorder(_:by:)`` re-sorts the rows held instead).
    public var order: RecordRowOrder {
        get { currentOrder }
        set {
            currentOrder = newValue
            needsRebuild = true
        }
    }
    private var currentOrder: RecordRowOrder
    public private(set) var source: Source?
    /// The server's changes through this position are in the rows (`nil`:
    /// a zone without change tokens, or nothing read yet).
    public private(set) var position: ServerChangeToken?
    /// The device's zone token when the rows were last brought up to date.
    public private(set) var deviceToken: ServerChangeToken?
    /// How many times the rows were read from scratch, and how many times changes were applied to them.
    public private(set) var rebuilds = 0
    public private(set) var updates = 0

    private var mark: ServerMark?
    /// Names the device's sync events touched since the last update.
    private var touched: Set<String> = []
    private var needsRebuild = true
    /// The rows by name, for an order that is not by name (a row is then found here, then by binary search).
    private var byName: [String: RecordRow] = [:]

    public init(order: RecordRowOrder = .naturalName) {
        currentOrder = order
    }

    /// Puts `list`'s rows (the rows this model keeps) in `order`, a column
    /// sort chosen: one sort of the rows held, no read of the server; later
    /// updates keep them in that order. The filter's rows are computed again.
    public mutating func reorder(_ list: inout RecordList, by order: RecordRowOrder) {
        currentOrder = order
        guard source != nil, !needsRebuild else { return }
        var rows = Array(list.rows)
        list = RecordList()
        rows.sort(by: order.areInIncreasingOrder)
        byName = order.isNaturalNameOrder ? [:] : Dictionary(rows.map { ($0.name, $0) }, uniquingKeysWith: { $1 })
        list = RecordList(key: nil, rows: rows)
    }

    /// The next update reads everything again.
    public mutating func invalidate() {
        needsRebuild = true
    }

    /// Takes note of a sync event of `device`: the record names it touched
    /// on the device (their rows are rebuilt at the next update), or a zone
    /// dropped, reset or refetched from scratch there (everything is read again).
    public mutating func note(_ event: SyncEvent, device: String) {
        guard let source, source.device == device else { return }
        // A zone without change tokens: any event of the device may have touched it (it is small).
        guard position != nil else {
            needsRebuild = true
            return
        }
        let zoneID = source.zone.zoneID
        switch event {
        case .changeQueued(let change), .pendingChangeDropped(let change, _):
            if change.isRecordChange, change.zoneID == zoneID, let name = change.recordName { touched.insert(name) }
        case .changesSent(_, let zone, let saved, let deleted):
            if zone == zoneID { for id in saved + deleted { touched.insert(id.recordName) } }
        case .conflictMerged(_, let recordID, _, _), .ambiguousCommitResolved(_, let recordID):
            if recordID.zoneID == zoneID { touched.insert(recordID.recordName) }
        case .vanishedRecordsRemoved(_, let zone, let ids):
            if zone == zoneID { for id in ids { touched.insert(id.recordName) } }
        case .zoneDeleted(_, let zone, _, _, _), .zonePurged(_, let zone, _, _), .zoneEncryptedDataReset(_, let zone, _):
            if zone == zoneID { needsRebuild = true }
        case .tokenExpired:
            needsRebuild = true
        default:
            // A fetch's records (recordsApplied) are the server's changes
            // since the device's previous token: read when its token moved.
            break
        }
    }

    /// What must be read from the server to bring the rows of `source` up
    /// to date; `nil`: nothing changed there.
    public func serverRead(for source: Source, mark: ServerMark, deviceToken: ServerChangeToken?) -> RecordRowsRead? {
        if needsRebuild || source != self.source { return .everything }
        guard let position else { return mark == self.mark && deviceToken == self.deviceToken ? nil : .everything }
        let deviceMoved = deviceToken != self.deviceToken
        if !deviceMoved && mark == self.mark { return nil }
        guard !deviceMoved else {
            // A device that had no token (or dropped it) fetched from scratch.
            guard let previous = self.deviceToken, deviceToken != nil else { return .everything }
            return .changes(since: position, deviceSince: previous)
        }
        return .changes(since: position, deviceSince: nil)
    }

    /// What of the device's copy an ``update(_:of:mark:deviceToken:device:read:)``
    /// with these answers reads: every record (`nil`: the rows are built
    /// again), or the records of these names. The effect that reads the
    /// world asks the device for just that (``RecordRowsDeviceCopy``).
    public func deviceNamesNeeded(
        for source: Source, mark: ServerMark, deviceToken: ServerChangeToken?, read: (RecordRowsRead) -> RecordRowsServerAnswer?
    ) -> Set<String>? {
        let request = serverRead(for: source, mark: mark, deviceToken: deviceToken)
        var answer = request.flatMap(read)
        if case .refused = answer { answer = read(.everything) }
        switch answer {
        case .everything?:
            return nil
        case .changes(let server, let deviceChanges)?:
            var names = touched
            for change in server.changes { names.insert(change.recordID.recordName) }
            for change in deviceChanges?.changes ?? [] { names.insert(change.recordID.recordName) }
            return names
        case .refused?, nil:
            return source != self.source || needsRebuild ? [] : touched
        }
    }

    /// Brings `list` up to date with the server and the device. `read`
    /// answers a ``RecordRowsRead`` (`nil`: not available now, over HTTP
    /// until the next server read; the rows then wait).
    ///
    /// - Returns: whether the rows changed.
    @discardableResult
    public mutating func update(
        _ list: inout RecordList, of source: Source, mark: ServerMark, deviceToken: ServerChangeToken?,
        device: some RecordRowsDevice, read: (RecordRowsRead) -> RecordRowsServerAnswer?
    ) -> Bool {
        let request = serverRead(for: source, mark: mark, deviceToken: deviceToken)
        var answer = request.flatMap(read)
        if case .refused = answer {
            needsRebuild = true
            answer = read(.everything)
        }
        switch answer {
        case .everything(let everything)?:
            rebuild(&list, of: source, records: everything, device: device)
            self.mark = mark
            self.deviceToken = deviceToken
            return true
        case .changes(let server, let deviceChanges)?:
            // Later entries for a name supersede earlier ones (a read over several pages).
            var serverRecords: [String: Record?] = [:]
            for change in server.changes { serverRecords.updateValue(change.record, forKey: change.recordID.recordName) }
            var names = touched
            for name in serverRecords.keys { names.insert(name) }
            for change in deviceChanges?.changes ?? [] { names.insert(change.recordID.recordName) }
            touched = []
            let changed = apply(names: names, serverRecords: serverRecords, to: &list, device: device)
            position = server.position
            self.mark = mark
            self.deviceToken = deviceToken
            return changed
        case .refused?, nil:
            if source != self.source || needsRebuild {
                // Nothing to show for this zone yet (over HTTP, until the server answers).
                if source != self.source {
                    list = RecordList()
                    self.source = source
                    byName = [:]
                }
                needsRebuild = true
                return true
            }
            // Nothing new on the server (or not known yet): what the device touched.
            guard !touched.isEmpty else { return false }
            let names = touched
            touched = []
            let changed = apply(names: names, serverRecords: [:], to: &list, device: device)
            return changed
        }
    }

    // MARK: Reading everything

    private mutating func rebuild(_ list: inout RecordList, of source: Source, records: ZoneRecordsAtPosition, device: some RecordRowsDevice) {
        var rows = Self.rows(server: records.records, device: source.zone.scope == .public ? [] : device.cachedRecords(),
                             pending: device.pendingRecordNames())
        if !order.isNaturalNameOrder {
            rows.sort(by: order.areInIncreasingOrder)
            byName = Dictionary(rows.map { ($0.name, $0) }, uniquingKeysWith: { $1 })
        } else {
            byName = [:]
        }
        list = RecordList(key: nil, rows: rows)
        self.source = source
        position = records.position
        touched = []
        needsRebuild = false
        rebuilds += 1
    }

    /// One row per name of `server` ∪ `device`, in ``NaturalOrder``.
    /// Lists already in that order (zero-padded names) cost one pass.
    public static func rows(server: [Record], device: [Record], pending: Set<String>) -> [RecordRow] {
        let server = NaturalOrder.sorted(server) { $0.recordID.recordName }
        let cached = NaturalOrder.sorted(device) { $0.recordID.recordName }
        var rows: [RecordRow] = []
        rows.reserveCapacity(max(server.count, cached.count))
        var s = 0
        var c = 0
        while s < server.count || c < cached.count {
            let serverName = s < server.count ? server[s].recordID.recordName : nil
            let cachedName = c < cached.count ? cached[c].recordID.recordName : nil
            if let serverName, let cachedName, serverName == cachedName {
                rows.append(RecordRow.merged(name: serverName, server: server[s], device: cached[c], hasPendingChange: pending.contains(serverName)))
                s += 1
                c += 1
            } else if let serverName, cachedName == nil || NaturalOrder.less(serverName, cachedName!) {
                rows.append(RecordRow.merged(name: serverName, server: server[s], device: nil, hasPendingChange: pending.contains(serverName)))
                s += 1
            } else if let cachedName {
                rows.append(RecordRow.merged(name: cachedName, server: nil, device: cached[c], hasPendingChange: pending.contains(cachedName)))
                c += 1
            } else {
                break
            }
        }
        return rows
    }

    // MARK: Applying changes

    /// Rebuilds the row of each name: the server's record from
    /// `serverRecords` when it changed there (`nil` inside: deleted), the
    /// row's own otherwise; the device's read now.
    private mutating func apply(
        names: Set<String>, serverRecords: [String: Record?], to list: inout RecordList, device: some RecordRowsDevice
    ) -> Bool {
        guard !names.isEmpty else { return false }
        let pending = device.pendingRecordNames()
        let isPublic = source?.zone.scope == .public
        var edit = RecordListEdit()
        // In another order, rows changed together may pass each other: they are then moved, not replaced.
        let inPlace = order.isNaturalNameOrder || names.count == 1
        for name in names {
            // A name the device's copy does not hold (it was touched after the copy was taken) waits for the next read.
            guard device.covers(name) else {
                touched.insert(name)
                continue
            }
            let index = self.index(of: name, in: list)
            let old = index.map { list.rows[$0] }
            let server: Record? = if let fromServer = serverRecords[name] { fromServer } else { old?.server }
            let cached = isPublic ? nil : device.cachedRecord(named: name)
            let row = server == nil && cached == nil
                ? nil : RecordRow.merged(name: name, server: server, device: cached, hasPendingChange: pending.contains(name))
            guard row != old else { continue }
            if !order.isNaturalNameOrder { byName[name] = row }
            if let index, let row, inPlace, list.fits(row, at: index, in: order) {
                edit.replacements.append((index, row))
            } else {
                if let index { edit.removals.append(index) }
                if let row { edit.insertions.append(row) }
            }
        }
        guard !edit.isEmpty else { return false }
        list.apply(edit, in: order)
        updates += 1
        return true
    }

    /// The index of the row named `name`, if there is one.
    private func index(of name: String, in list: RecordList) -> Int? {
        let rows = list.rows
        if order.isNaturalNameOrder {
            let low = rows.partitionPoint { NaturalOrder.less($0.name, name) }
            return low < rows.count && rows[low].name == name ? low : nil
        }
        guard let row = byName[name] else { return nil }
        let index = list.insertionIndex(of: row, in: order)
        return index < rows.count && rows[index].name == name ? index : nil
    }
}

// MARK: - Rows

extension RecordRow {
    /// The row of `name`, its marker worked out from the two versions.
    public static func merged(name: String, server: Record?, device: Record?, hasPendingChange: Bool) -> RecordRow {
        let marker: RecordMarker
        switch (server, device) {
        case (let server?, let local?): marker = server.recordChangeTag == local.recordChangeTag ? .same : .changed
        case (_?, nil): marker = hasPendingChange ? .same : .new
        case (nil, let local?): marker = local.recordChangeTag == nil && hasPendingChange ? .localOnly : .deleted
        case (nil, nil): marker = .same
        }
        return RecordRow(name: name, server: server, device: device, marker: marker, hasPendingChange: hasPendingChange)
    }
}

extension RecordChange {
    /// The record in its latest state; `nil` for a deletion.
    var record: Record? {
        if case .changed(let record) = self { return record }
        return nil
    }
}

extension RecordList {
    /// Where `row` stands (or would stand) in rows kept in `order`.
    func insertionIndex(of row: RecordRow, in order: RecordRowOrder) -> Int {
        rows.partitionPoint { order.areInIncreasingOrder($0, row) }
    }

    /// Whether `row` can take the place of the row at `index` without breaking the order.
    func fits(_ row: RecordRow, at index: Int, in order: RecordRowOrder) -> Bool {
        if order.isNaturalNameOrder { return rows[index].name == row.name }
        if index > 0 && !order.areInIncreasingOrder(rows[index - 1], row) { return false }
        if index + 1 < rows.count && !order.areInIncreasingOrder(row, rows[index + 1]) { return false }
        return true
    }

    /// Applies `edit` (its indices are those of the rows before it), keeping
    /// the rows in `order` and the counts, the unsent total and the filter's
    /// rows in step. Removals and insertions each move the rows of the
    /// chunks they touch once (``RecordRows``), however many there are.
    mutating func apply(_ edit: RecordListEdit, in order: RecordRowOrder) {
        let selection = applied.map { (needle: $0.filter.lowercased(), mode: $0.mode) }
        func keeps(_ row: RecordRow) -> Bool {
            selection.map { Self.keeps(row, needle: $0.needle, mode: $0.mode) } ?? true
        }
        for (index, row) in edit.replacements {
            count(rows[index], -1)
            rows[index] = row
            count(row, +1)
            guard var shown = visible else { continue }
            visible = nil
            let k = Self.slot(of: index, in: shown)
            let present = k < shown.count && shown[k] == index
            if keeps(row) && !present { shown.insert(index, at: k) }
            if !keeps(row) && present { shown.remove(at: k) }
            visible = shown
        }
        if !edit.removals.isEmpty {
            let removals = edit.removals.sorted()
            for index in removals { count(rows[index], -1) }
            rows.removeAll(atSortedIndices: removals)
            if let shown = visible {
                var next: [Int] = []
                next.reserveCapacity(shown.count)
                var r = 0
                for v in shown {
                    while r < removals.count && removals[r] < v { r += 1 }
                    if r < removals.count && removals[r] == v { continue }
                    next.append(v - r)
                }
                visible = next
            }
        }
        if !edit.insertions.isEmpty {
            let inserted = edit.insertions.sorted(by: order.areInIncreasingOrder)
            let positions = inserted.map { insertionIndex(of: $0, in: order) }
            for row in inserted { count(row, +1) }
            rows.insert(inserted, atSortedPositions: positions)
            if let shown = visible {
                var next: [Int] = []
                next.reserveCapacity(shown.count + inserted.count)
                var j = 0
                for v in shown {
                    while j < positions.count && positions[j] <= v {
                        if keeps(inserted[j]) { next.append(positions[j] + j) }
                        j += 1
                    }
                    next.append(v + j)
                }
                while j < positions.count {
                    if keeps(inserted[j]) { next.append(positions[j] + j) }
                    j += 1
                }
                visible = next
            }
        }
    }

    /// The first position in `shown` (ascending) holding a row index `>= index`.
    private static func slot(of index: Int, in shown: [Int]) -> Int {
        var low = 0
        var high = shown.count
        while low < high {
            let mid = (low + high) / 2
            if shown[mid] < index { low = mid + 1 } else { high = mid }
        }
        return low
    }

    private mutating func count(_ row: RecordRow, _ delta: Int) {
        if row.marker != .same {
            let total = counts[row.marker, default: 0] + delta
            counts[row.marker] = total == 0 ? nil : total
        }
        if row.hasPendingChange { unsent += delta }
    }
}

extension Array {
    /// Removes the elements at `indices` (ascending, distinct), moving each
    /// element after the first of them once (one `memmove` per kept span).
    mutating func removeAll(atSortedIndices indices: [Int]) {
        guard indices.count > 1 else {
            if let index = indices.first { remove(at: index) }
            return
        }
        let total = count
        var removed: [Element] = []
        removed.reserveCapacity(indices.count)
        withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            var write = indices[0]
            for (n, index) in indices.enumerated() {
                removed.append((base + index).move())
                let start = index + 1
                let end = n + 1 < indices.count ? indices[n + 1] : total
                if end > start {
                    (base + write).moveInitialize(from: base + start, count: end - start)
                    write += end - start
                }
            }
            // The emptied tail takes the removed elements back, to be dropped just below.
            for (k, element) in removed.enumerated() { (base + write + k).initialize(to: element) }
        }
        removeLast(indices.count)
    }

    /// Inserts `elements[j]` before the element now at `positions[j]`
    /// (`positions` non-decreasing, each in `0...count`), moving each
    /// element once (one `memmove` per span, from the back).
    mutating func insert(_ elements: [Element], atSortedPositions positions: [Int]) {
        guard elements.count > 1 else {
            if let element = elements.first { insert(element, at: positions[0]) }
            return
        }
        let oldCount = count
        let k = elements.count
        append(contentsOf: elements)
        withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            (base + oldCount).deinitialize(count: k)
            var end = oldCount
            for j in stride(from: k - 1, through: 0, by: -1) {
                let p = positions[j]
                if end > p { (base + p + j + 1).moveInitialize(from: base + p, count: end - p) }
                (base + p + j).initialize(to: elements[j])
                end = p
            }
        }
    }
}
