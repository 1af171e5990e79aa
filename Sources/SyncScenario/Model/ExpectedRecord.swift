import SyncCore

/// A record a check expects; only the fields named are compared.
public struct ExpectedRecord: Sendable, Equatable {
    public var recordName: String
    /// `nil`: any type.
    public var recordType: String?
    /// Fields that must have these values; other fields are not checked.
    public var fields: RecordFields

    public init(_ recordName: String, recordType: String? = nil, fields: RecordFields = RecordFields()) {
        self.recordName = recordName
        self.recordType = recordType
        self.fields = fields
    }
}
