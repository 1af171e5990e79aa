import SyncCore

/// Checks the answer of the latest `fetch` or `sync` (all its batches
/// together when it fetched all changes). Every part is optional.
public struct LastFetchExpectation: Sendable, Equatable {
    /// `nil`: whichever device fetched last.
    public var device: String?
    /// The changed records, in the order the server sent them.
    public var records: [ExpectedRecord]?
    /// The records reported deleted, in order (with their record types,
    /// when the check gives them).
    public var deletions: [ExpectedDeletion]?
    /// Database changes: the zones reported changed, in order.
    public var zones: [ZoneRef]?
    /// Database changes: the zones reported removed, in order.
    public var deletedZones: [ExpectedDeletedZone]?
    /// The last batch's `moreComing`.
    public var moreComing: Bool?
    /// Whether the device's cached token differs from the one it had before
    /// the fetch (for a zone fetch: the token of any fetched zone).
    public var tokenChanged: Bool?
    /// How many batches (server responses) the fetch received, in all.
    public var batches: Int?

    public init(
        device: String? = nil, records: [ExpectedRecord]? = nil, deletions: [ExpectedDeletion]? = nil, zones: [ZoneRef]? = nil,
        deletedZones: [ExpectedDeletedZone]? = nil, moreComing: Bool? = nil, tokenChanged: Bool? = nil, batches: Int? = nil
    ) {
        self.device = device
        self.records = records
        self.deletions = deletions
        self.zones = zones
        self.deletedZones = deletedZones
        self.moreComing = moreComing
        self.tokenChanged = tokenChanged
        self.batches = batches
    }
}
