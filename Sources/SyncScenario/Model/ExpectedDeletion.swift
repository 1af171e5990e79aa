import SyncCore

/// A deletion a zone fetch reports: the record's name and, when the check
/// names one, its record type.
public struct ExpectedDeletion: Sendable, Equatable, ExpressibleByStringLiteral, CustomStringConvertible {
    public var recordName: String
    /// `nil`: any type.
    public var recordType: String?

    public init(_ recordName: String, recordType: String? = nil) {
        self.recordName = recordName
        self.recordType = recordType
    }

    public init(stringLiteral value: String) {
        self.init(value)
    }

    public var description: String {
        recordType.map { "\(recordName) (\($0))" } ?? recordName
    }
}
