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
