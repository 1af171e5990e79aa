import Foundation

extension CKSyncEngine {
    /// Why the engine syncs: on its own schedule, or because the app asked.
    public enum SyncReason: Sendable, Hashable {
        case scheduled
        case manual
    }

    /// What a fetch covers, as CloudKit's `CKSyncEngine.FetchChangesOptions`.
    public struct FetchChangesOptions: Sendable, Hashable {
        /// Which zones a fetch covers.
        public enum Scope: Sendable, Hashable {
            case all
            case zoneIDs([CKRecordZone.ID])
            case allExcluding([CKRecordZone.ID])

            public func contains(_ zoneID: CKRecordZone.ID) -> Bool {
                switch self {
                case .all: true
                case .zoneIDs(let ids): ids.contains(zoneID)
                case .allExcluding(let ids): !ids.contains(zoneID)
                }
            }
        }

        public var scope: Scope
        /// Zones to fetch first, in this order.
        public var prioritizedZoneIDs: [CKRecordZone.ID]

        public init(scope: Scope = .all) {
            self.scope = scope
            prioritizedZoneIDs = []
        }
    }

    /// What a send covers, as CloudKit's `CKSyncEngine.SendChangesOptions`.
    public struct SendChangesOptions: Sendable, Hashable {
        /// Which pending changes a send covers.
        public enum Scope: Sendable, Hashable {
            case all
            case zoneIDs([CKRecordZone.ID])
            case allExcluding([CKRecordZone.ID])
            case recordIDs([CKRecord.ID])

            public func contains(_ zoneID: CKRecordZone.ID) -> Bool {
                switch self {
                case .all: true
                case .zoneIDs(let ids): ids.contains(zoneID)
                case .allExcluding(let ids): !ids.contains(zoneID)
                case .recordIDs(let ids): ids.contains { $0.zoneID == zoneID }
                }
            }

            public func contains(_ recordID: CKRecord.ID) -> Bool {
                switch self {
                case .recordIDs(let ids): ids.contains(recordID)
                default: contains(recordID.zoneID)
                }
            }

            public func contains(_ pendingRecordZoneChange: PendingRecordZoneChange) -> Bool {
                contains(pendingRecordZoneChange.recordID)
            }

            public func contains(_ pendingDatabaseChange: PendingDatabaseChange) -> Bool {
                contains(pendingDatabaseChange.zoneID)
            }
        }

        public var scope: Scope

        public init(scope: Scope = .all) {
            self.scope = scope
        }
    }

    /// Why a fetch runs and what it covers; handed to the delegate.
    public struct FetchChangesContext: Sendable, Hashable {
        public let reason: SyncReason
        public let options: FetchChangesOptions
    }

    /// Why a send runs and what it covers; handed to the delegate.
    public struct SendChangesContext: Sendable, Hashable {
        public let reason: SyncReason
        public let options: SendChangesOptions
    }
}
