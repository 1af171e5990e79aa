import SyncCore

/// Checks a device's cache of one zone.
public struct CacheExpectation: Sendable, Equatable {
    public var device: String
    public var database: DatabaseScope
    public var zone: ZoneRef
    /// Exactly these records (in any order), and no others.
    public var records: [ExpectedRecord]?
    /// At least these records.
    public var includes: [ExpectedRecord]
    /// None of these record names.
    public var excludes: [String]
    /// This many records.
    public var count: Int?

    public init(
        device: String, database: DatabaseScope = .private, zone: ZoneRef, records: [ExpectedRecord]? = nil,
        includes: [ExpectedRecord] = [], excludes: [String] = [], count: Int? = nil
    ) {
        self.device = device
        self.database = database
        self.zone = zone
        self.records = records
        self.includes = includes
        self.excludes = excludes
        self.count = count
    }
}
