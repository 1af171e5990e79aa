import SyncCore
import SyncClient

/// How the focused device's copy of a zone compares with the server's.
public enum ZoneSyncState: Hashable, Sendable {
    /// The device's token is the server's latest: nothing to fetch.
    case inSync
    /// A fetch from the device's token would return this many records (the
    /// latest state of each record changed since: several changes to one
    /// record come back as one).
    case behind(Int)
    /// The device has no token for the zone: a fetch returns every record.
    case notFetched(Int)
    /// The zone was deleted on the server (or is no longer shared).
    case deleted
    /// The user deleted the app's data in the zone (`userDeletedZone`).
    case purged
    /// The user reset their encrypted data: the zone is gone until it is uploaded again.
    case reset
    /// The server refuses the device's token (`changeTokenExpired`).
    case tokenExpired
    /// The server refuses the device's token for another reason.
    case tokenRefused(String)
    /// The device created it; the server does not have it yet.
    case notSent
    /// The default zones: no change tokens there.
    case noChangeFetching

    /// A few words for a narrow column.
    public var short: String {
        switch self {
        case .inSync: "in sync"
        case .behind(let n): "behind \(n)"
        case .notFetched: "no token"
        case .deleted: "deleted"
        case .purged: "purged"
        case .reset: "reset"
        case .tokenExpired: "expired"
        case .tokenRefused: "refused"
        case .notSent: "not sent"
        case .noChangeFetching: "—"
        }
    }

    /// A phrase for a wide column.
    public var long: String {
        switch self {
        case .inSync: "in sync"
        case .behind(let n): "behind: a fetch brings \(n) record\(n == 1 ? "" : "s")"
        case .notFetched(let n): "not fetched (\(n) to get)"
        case .deleted: "deleted"
        case .purged: "purged"
        case .reset: "reset"
        case .tokenExpired: "token expired"
        case .tokenRefused: "token refused"
        case .notSent: "not on the server yet"
        case .noChangeFetching: "no change fetching"
        }
    }

    var isProblem: Bool {
        switch self {
        case .deleted, .purged, .reset, .tokenExpired, .tokenRefused: true
        default: false
        }
    }
}
