/// Which operation a token belongs to.
public enum ChangeTokenKind: UInt8, Sendable, Hashable, CustomStringConvertible {
    /// Issued by `changes/database` (`CKFetchDatabaseChangesOperation`).
    case database = 1
    /// Issued by `changes/zone` (`CKFetchRecordZoneChangesOperation`).
    case recordZone = 2

    public var description: String {
        switch self {
        case .database: "database"
        case .recordZone: "record-zone"
        }
    }
}
