import SyncCore
import SyncClient

/// What the effect that reads the world copied of the focused device's zone
/// for the records pane (``RecordRowsModel``): every cached record when the
/// rows are built again, else only the records of the names the model asked
/// for. A value, so the update step applies it without the world.
public struct RecordRowsDeviceCopy: RecordRowsDevice, Sendable, Equatable {
    public var zone: ZoneKey
    /// Every cached record of the zone (`nil`: only ``named`` was copied).
    public var all: [Record]?
    /// The cached record of each name asked for (`nil` inside: the device has none of that name).
    public var named: [String: Record?]
    /// Names of the zone's records with a change waiting to be sent.
    public var pending: Set<String>

    public init(zone: ZoneKey, all: [Record]?, named: [String: Record?] = [:], pending: Set<String> = []) {
        self.zone = zone
        self.all = all
        self.named = named
        self.pending = pending
    }

    /// Copies from `device` what the model needs: every record (`names` is
    /// `nil`), or the records of `names`.
    public init(copying device: some RecordRowsDevice, zone: ZoneKey, names: Set<String>?) {
        self.zone = zone
        if let names {
            all = nil
            var named: [String: Record?] = Dictionary(minimumCapacity: names.count)
            for name in names { named[name] = .some(device.cachedRecord(named: name)) }
            self.named = named
        } else {
            all = device.cachedRecords()
            named = [:]
        }
        pending = device.pendingRecordNames()
    }

    public func cachedRecords() -> [Record] {
        all ?? named.values.compactMap { $0 }
    }

    public func cachedRecord(named name: String) -> Record? {
        if let copied = named[name] { return copied }
        return all?.first { $0.recordID.recordName == name }
    }

    public func pendingRecordNames() -> Set<String> { pending }

    public func covers(_ name: String) -> Bool {
        all != nil || named[name] != nil
    }
}
