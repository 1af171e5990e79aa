import Foundation

extension CKSyncEngine {
    /// A record change waiting to be sent, as CloudKit's `CKSyncEngine.PendingRecordZoneChange`.
    public enum PendingRecordZoneChange: Hashable, Sendable, CustomStringConvertible {
        case saveRecord(CKRecord.ID)
        case deleteRecord(CKRecord.ID)

        public var recordID: CKRecord.ID {
            switch self {
            case .saveRecord(let id), .deleteRecord(let id): id
            }
        }

        public var description: String {
            switch self {
            case .saveRecord(let id): "saveRecord(\(id.recordName))"
            case .deleteRecord(let id): "deleteRecord(\(id.recordName))"
            }
        }
    }

    /// A zone change waiting to be sent, as CloudKit's `CKSyncEngine.PendingDatabaseChange`.
    public enum PendingDatabaseChange: Hashable, Sendable, CustomStringConvertible {
        case saveZone(CKRecordZone)
        case deleteZone(CKRecordZone.ID)

        public var zoneID: CKRecordZone.ID {
            switch self {
            case .saveZone(let zone): zone.zoneID
            case .deleteZone(let id): id
            }
        }

        public var description: String {
            switch self {
            case .saveZone(let zone): "saveZone(\(zone.zoneID.zoneName))"
            case .deleteZone(let id): "deleteZone(\(id.zoneName))"
            }
        }
    }
}
