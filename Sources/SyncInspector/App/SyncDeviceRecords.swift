import SyncCore
import SyncClient
import SyncWorlds

/// A `SyncDevice`'s copy of one zone (nothing of the public database: devices do not cache it).
public struct SyncDeviceRecords: RecordRowsDevice {
    public let device: SyncDevice
    public let zone: ZoneKey

    public init(device: SyncDevice, zone: ZoneKey) {
        self.device = device
        self.zone = zone
    }

    public func cachedRecords() -> [Record] {
        zone.scope == .public ? [] : (try? device.engine.records(in: zone.zoneID)) ?? []
    }

    public func cachedRecord(named name: String) -> Record? {
        guard zone.scope != .public else { return nil }
        return (try? device.engine.record(RecordID(recordName: name, zoneID: zone.zoneID))) ?? nil
    }

    public func pendingRecordNames() -> Set<String> {
        Set(((try? device.engine.pendingChanges()) ?? [])
            .filter { $0.isRecordChange && $0.zoneID == zone.zoneID }
            .compactMap(\.recordName))
    }
}
