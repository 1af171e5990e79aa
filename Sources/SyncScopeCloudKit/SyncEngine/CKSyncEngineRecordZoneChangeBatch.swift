import Foundation

extension CKSyncEngine {
    /// The record changes of one send, as CloudKit's `CKSyncEngine.RecordZoneChangeBatch`.
    public struct RecordZoneChangeBatch: Sendable {
        /// The most changes one batch carries (the server's limit for one request).
        static let maximumCount = 400

        public var recordsToSave: [CKRecord]
        public var recordIDsToDelete: [CKRecord.ID]
        /// Whether each zone's changes are applied all or nothing.
        public var atomicByZone: Bool

        /// A batch of the first pending changes, up to the batch limit: saves ask
        /// `recordProvider` for their record (a `nil` record skips the change); deletions go as they are.
        /// `nil` when there is nothing to send.
        public init?(pendingChanges: [PendingRecordZoneChange], recordProvider: @Sendable (CKRecord.ID) async -> CKRecord?) async {
            var saves: [CKRecord] = []
            var deletes: [CKRecord.ID] = []
            for change in pendingChanges {
                if saves.count + deletes.count >= Self.maximumCount { break }
                switch change {
                case .saveRecord(let id):
                    if let record = await recordProvider(id) { saves.append(record) }
                case .deleteRecord(let id):
                    deletes.append(id)
                }
            }
            if saves.isEmpty && deletes.isEmpty { return nil }
            self.init(recordsToSave: saves, recordIDsToDelete: deletes, atomicByZone: false)
        }

        public init(recordsToSave: [CKRecord], recordIDsToDelete: [CKRecord.ID], atomicByZone: Bool = false) {
            self.recordsToSave = recordsToSave
            self.recordIDsToDelete = recordIDsToDelete
            self.atomicByZone = atomicByZone
        }
    }
}
