import Foundation

extension CKDatabase {
    /// What changed in a zone, as `recordZoneChanges(inZoneWith:since:…)` answers it.
    public enum RecordZoneChange {
        /// A record saved (created or changed) since the token.
        public struct Modification: Sendable {
            public let record: CKRecord
        }

        /// A record deleted since the token, with the type it had.
        public struct Deletion: Sendable {
            public let recordID: CKRecord.ID
            public let recordType: CKRecord.RecordType
        }
    }

    /// What changed in a database, as `databaseChanges(since:resultsLimit:)` answers it.
    public enum DatabaseChange {
        /// A zone created, changed, or shared in since the token.
        public struct Modification: Sendable {
            public let zoneID: CKRecordZone.ID
        }

        /// A zone gone since the token, and why.
        public struct Deletion: Sendable {
            /// Why a zone left the database.
            public enum Reason: Sendable, Hashable {
                /// The app (or, for a shared zone, its owner) deleted it.
                case deleted
                /// The user deleted the app's data in Settings: do not upload it again.
                case purged
                /// The user reset their encrypted data: upload local data again.
                case encryptedDataReset
            }

            public let zoneID: CKRecordZone.ID
            public let reason: Reason
        }
    }
}
