import SyncCore

/// Checks the latest `send` or `sync` (or that of `device`): what reached
/// the server, and which saves met a newer server record. Every part is optional.
public struct LastSendExpectation: Sendable, Equatable {
    /// `nil`: whichever device sent last.
    public var device: String?
    /// The records the server saved, in any order.
    public var saved: [String]?
    /// The records the server deleted, in any order.
    public var deleted: [String]?
    /// The records whose save failed with `serverRecordChanged` (and were
    /// merged into the server's record and sent again, unless the send was
    /// told not to merge), in any order.
    public var conflicts: [String]?

    public init(device: String? = nil, saved: [String]? = nil, deleted: [String]? = nil, conflicts: [String]? = nil) {
        self.device = device
        self.saved = saved
        self.deleted = deleted
        self.conflicts = conflicts
    }
}
