import Foundation
import SyncCore

/// A record save, kept by the device until it sends.
public struct SaveAction: Sendable, Equatable {
    public var device: String
    public var database: DatabaseScope
    public var zone: ZoneRef
    public var recordName: String
    /// `nil`: the type of the record the device already has (a new record needs one).
    public var recordType: String?
    /// Fields to set; other fields keep their values.
    public var fields: RecordFields
    /// Fields to remove (written as `name: null`), sorted.
    public var removedFields: [String]
    public var savePolicy: RecordSavePolicy

    public init(
        device: String, database: DatabaseScope = .private, zone: ZoneRef, recordName: String,
        recordType: String? = nil, fields: RecordFields = RecordFields(), removedFields: [String] = [],
        savePolicy: RecordSavePolicy = .ifServerRecordUnchanged
    ) {
        self.device = device
        self.database = database
        self.zone = zone
        self.recordName = recordName
        self.recordType = recordType
        self.fields = fields
        self.removedFields = removedFields
        self.savePolicy = savePolicy
    }
}
