import SyncCore

/// Checks whether a device caches a token for a database (no zone) or a zone.
public struct TokenExpectation: Sendable, Equatable {
    public var device: String
    public var database: DatabaseScope
    /// `nil`: the database-changes token.
    public var zone: ZoneRef?
    /// Whether a token is cached at all.
    public var cached: Bool
    /// The cached token is the one remembered under this name.
    public var sameAs: String?

    public init(device: String, database: DatabaseScope = .private, zone: ZoneRef? = nil, cached: Bool = true, sameAs: String? = nil) {
        self.device = device
        self.database = database
        self.zone = zone
        self.cached = cached
        self.sameAs = sameAs
    }
}
