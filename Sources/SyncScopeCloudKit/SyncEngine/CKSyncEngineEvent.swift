import Foundation

extension CKSyncEngine {
    /// What the engine tells its delegate, as CloudKit's `CKSyncEngine.Event`.
    ///
    /// A fetch sends, in order: `willFetchChanges`; `fetchedDatabaseChanges` (when zones
    /// changed) and `stateUpdate`, per page; then for each zone with changes
    /// `willFetchRecordZoneChanges`, `fetchedRecordZoneChanges` and `stateUpdate` per page,
    /// `didFetchRecordZoneChanges`; and last `didFetchChanges`. A send: `willSendChanges`;
    /// `sentDatabaseChanges` (when zone changes were pending) and `stateUpdate`;
    /// `sentRecordZoneChanges` and `stateUpdate` per batch; `didSendChanges`. An
    /// `accountChange` comes before the first of these after the account changed.
    public enum Event: Sendable, CustomStringConvertible {
        case stateUpdate(StateUpdate)
        case accountChange(AccountChange)
        case fetchedDatabaseChanges(FetchedDatabaseChanges)
        case fetchedRecordZoneChanges(FetchedRecordZoneChanges)
        case sentDatabaseChanges(SentDatabaseChanges)
        case sentRecordZoneChanges(SentRecordZoneChanges)
        case willFetchChanges(WillFetchChanges)
        case willFetchRecordZoneChanges(WillFetchRecordZoneChanges)
        case didFetchRecordZoneChanges(DidFetchRecordZoneChanges)
        case didFetchChanges(DidFetchChanges)
        case willSendChanges(WillSendChanges)
        case didSendChanges(DidSendChanges)

        /// The state changed: persist this serialization with the app's data.
        public struct StateUpdate: Sendable {
            public let stateSerialization: State.Serialization
        }

        /// The device's iCloud account changed.
        public struct AccountChange: Sendable {
            public enum ChangeType: Sendable {
                case signIn(currentUser: CKRecord.ID)
                case signOut(previousUser: CKRecord.ID)
                case switchAccounts(previousUser: CKRecord.ID, currentUser: CKRecord.ID)
            }

            public let changeType: ChangeType
        }

        /// Zones changed or went away on the server.
        public struct FetchedDatabaseChanges: Sendable {
            public let modifications: [CKDatabase.DatabaseChange.Modification]
            public let deletions: [CKDatabase.DatabaseChange.Deletion]
        }

        /// Records changed or went away on the server.
        public struct FetchedRecordZoneChanges: Sendable {
            public let modifications: [CKDatabase.RecordZoneChange.Modification]
            public let deletions: [CKDatabase.RecordZoneChange.Deletion]
        }

        /// Zone changes were sent.
        public struct SentDatabaseChanges: Sendable {
            public struct FailedZoneSave: Sendable {
                public let zone: CKRecordZone
                public let error: CKError
            }

            public let savedZones: [CKRecordZone]
            public let failedZoneSaves: [FailedZoneSave]
            public let deletedZoneIDs: [CKRecordZone.ID]
            public let failedZoneDeletes: [CKRecordZone.ID: CKError]
        }

        /// A batch of record changes was sent. Keep each saved record's system fields
        /// (`encodeSystemFields(with:)`) for its next save; resolve each failure and add the
        /// change again if it should still be sent.
        public struct SentRecordZoneChanges: Sendable {
            public struct FailedRecordSave: Sendable {
                public let record: CKRecord
                public let error: CKError
            }

            public let savedRecords: [CKRecord]
            public let failedRecordSaves: [FailedRecordSave]
            public let deletedRecordIDs: [CKRecord.ID]
            public let failedRecordDeletes: [CKRecord.ID: CKError]
        }

        public struct WillFetchChanges: Sendable {
            public let context: FetchChangesContext
        }

        public struct WillFetchRecordZoneChanges: Sendable {
            public let zoneID: CKRecordZone.ID
        }

        public struct DidFetchRecordZoneChanges: Sendable {
            public let zoneID: CKRecordZone.ID
            /// Why the zone's fetch stopped, if it failed.
            public let error: CKError?
        }

        public struct DidFetchChanges: Sendable {
            public let context: FetchChangesContext
        }

        public struct WillSendChanges: Sendable {
            public let context: SendChangesContext
        }

        public struct DidSendChanges: Sendable {
            public let context: SendChangesContext
        }

        public var description: String {
            switch self {
            case .stateUpdate: "stateUpdate"
            case .accountChange(let e): "accountChange(\(e.changeType))"
            case .fetchedDatabaseChanges(let e): "fetchedDatabaseChanges(\(e.modifications.count) modified, \(e.deletions.count) deleted)"
            case .fetchedRecordZoneChanges(let e): "fetchedRecordZoneChanges(\(e.modifications.count) modified, \(e.deletions.count) deleted)"
            case .sentDatabaseChanges(let e): "sentDatabaseChanges(\(e.savedZones.count) saved, \(e.deletedZoneIDs.count) deleted, \(e.failedZoneSaves.count + e.failedZoneDeletes.count) failed)"
            case .sentRecordZoneChanges(let e): "sentRecordZoneChanges(\(e.savedRecords.count) saved, \(e.deletedRecordIDs.count) deleted, \(e.failedRecordSaves.count + e.failedRecordDeletes.count) failed)"
            case .willFetchChanges: "willFetchChanges"
            case .willFetchRecordZoneChanges(let e): "willFetchRecordZoneChanges(\(e.zoneID.zoneName))"
            case .didFetchRecordZoneChanges(let e): "didFetchRecordZoneChanges(\(e.zoneID.zoneName)\(e.error.map { ", \($0.code)" } ?? ""))"
            case .didFetchChanges: "didFetchChanges"
            case .willSendChanges: "willSendChanges"
            case .didSendChanges: "didSendChanges"
            }
        }
    }
}
