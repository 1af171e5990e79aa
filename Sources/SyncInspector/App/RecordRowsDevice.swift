import SyncCore
import SyncClient
import SyncWorlds

/// What the device whose copy the records pane shows has of the zone.
public protocol RecordRowsDevice {
    /// The device's cached records of the zone, in any order.
    func cachedRecords() -> [Record]
    /// The device's cached record of this name, if any.
    func cachedRecord(named name: String) -> Record?
    /// Names of the zone's records with a change waiting to be sent.
    func pendingRecordNames() -> Set<String>
    /// Whether this copy knows the record `name` (a ``RecordRowsDeviceCopy``
    /// holds only the names asked for; a name it does not hold waits for the next read).
    func covers(_ name: String) -> Bool
}

extension RecordRowsDevice {
    public func covers(_ name: String) -> Bool { true }
}
