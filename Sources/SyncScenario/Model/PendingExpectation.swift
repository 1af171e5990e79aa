import SyncCore

/// Checks the local changes a device has queued and not sent yet.
public struct PendingExpectation: Sendable, Equatable {
    public var device: String
    /// How many changes are queued (records and zones).
    public var count: Int?
    /// Exactly the records with a queued save or deletion, in any order.
    public var records: [String]?

    public init(device: String, count: Int? = nil, records: [String]? = nil) {
        self.device = device
        self.count = count
        self.records = records
    }
}
