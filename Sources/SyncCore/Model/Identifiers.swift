/// The three kinds of database a CloudKit container offers.
///
/// Each user has one private and one shared database per container and
/// environment; the public database is one per container and environment.
public enum DatabaseScope: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    case `public`
    case `private`
    case shared

    public static func < (lhs: DatabaseScope, rhs: DatabaseScope) -> Bool {
        lhs.sortIndex < rhs.sortIndex
    }

    private var sortIndex: Int {
        switch self {
        case .public: 0
        case .private: 1
        case .shared: 2
        }
    }

    /// Whether change fetching (`changes/database`, `changes/zone`) works here.
    public var supportsChangeFetching: Bool { self != .public }
}

/// `development` and `production` are two separate data sets.
public enum ContainerEnvironment: String, Sendable, Hashable, Codable, CaseIterable {
    case development
    case production
}

/// Identifies a record zone: its name and the user who owns it.
public struct RecordZoneID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The name every database gives its default zone.
    public static let defaultZoneName = "_defaultZone"
    /// The owner name of the public database's default zone.
    public static let publicOwnerName = "__public__"
    /// CloudKit's name for "the current user" (`CKCurrentUserDefaultName`).
    public static let currentUserName = "__defaultOwner__"

    public var zoneName: String
    public var ownerName: String

    public init(zoneName: String, ownerName: String) {
        self.zoneName = zoneName
        self.ownerName = ownerName
    }

    /// The default zone of `ownerName`'s database.
    public static func defaultZone(ownerName: String) -> RecordZoneID {
        RecordZoneID(zoneName: defaultZoneName, ownerName: ownerName)
    }

    public var isDefaultZone: Bool { zoneName == Self.defaultZoneName }

    public var description: String { "\(zoneName)@\(ownerName)" }

    public static func < (lhs: RecordZoneID, rhs: RecordZoneID) -> Bool {
        (lhs.ownerName, lhs.zoneName) < (rhs.ownerName, rhs.zoneName)
    }
}

/// Identifies a record: its name within a zone.
public struct RecordID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var recordName: String
    public var zoneID: RecordZoneID

    public init(recordName: String, zoneID: RecordZoneID) {
        self.recordName = recordName
        self.zoneID = zoneID
    }

    public var description: String { "\(recordName) in \(zoneID)" }

    public static func < (lhs: RecordID, rhs: RecordID) -> Bool {
        (lhs.zoneID, lhs.recordName) < (rhs.zoneID, rhs.recordName)
    }
}

/// Identifies one database: container, environment, scope — and, for the
/// private and shared databases, whose.
public struct DatabaseID: Hashable, Sendable, CustomStringConvertible {
    public var container: String
    public var environment: ContainerEnvironment
    public var scope: DatabaseScope

    public init(container: String, environment: ContainerEnvironment = .development, scope: DatabaseScope) {
        self.container = container
        self.environment = environment
        self.scope = scope
    }

    public var description: String { "\(container)/\(environment.rawValue)/\(scope.rawValue)" }
}
