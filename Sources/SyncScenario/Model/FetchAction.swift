import Foundation
import SyncCore

/// A fetch of database changes (`CKFetchDatabaseChangesOperation`) or of
/// zone changes (`CKFetchRecordZoneChangesOperation`).
public struct FetchAction: Sendable, Equatable {
    public enum Target: Sendable, Equatable {
        /// `changes/database`: which zones changed.
        case databaseChanges
        /// `changes/zone`: what changed in these zones.
        case zoneChanges([ZoneRef])
    }

    public var device: String
    public var database: DatabaseScope
    public var target: Target
    public var token: TokenChoice
    /// Most entries per batch; `nil`: the server's limit.
    public var resultsLimit: Int?
    /// Keep fetching while the server says `moreComing` (caching each
    /// batch's token); `false`: one batch only.
    public var fetchAllChanges: Bool
    /// Fields to fetch; `nil`: all, `[]`: none. Zone changes only.
    public var desiredKeys: [String]?
    /// Remember the final token (one per zone for zone changes) under this name.
    public var capture: String?
    /// Stop after this many batches, as if the app were killed there: the
    /// batches before are stored with their tokens, and the step ends
    /// without an error. `nil`: fetch to the end.
    public var interruptAfter: Int?
    /// Kill the app while it stores one of the batches (see ``FetchCrash``).
    public var crash: FetchCrash?

    public init(
        device: String, database: DatabaseScope = .private, target: Target, token: TokenChoice = .cached,
        resultsLimit: Int? = nil, fetchAllChanges: Bool = true, desiredKeys: [String]? = nil, capture: String? = nil,
        interruptAfter: Int? = nil, crash: FetchCrash? = nil
    ) {
        self.device = device
        self.database = database
        self.target = target
        self.token = token
        self.resultsLimit = resultsLimit
        self.fetchAllChanges = fetchAllChanges
        self.desiredKeys = desiredKeys
        self.capture = capture
        self.interruptAfter = interruptAfter
        self.crash = crash
    }
}
