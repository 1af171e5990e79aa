import SyncCore

/// Everything a ``FetchDatabaseChangesOperation`` reported.
public struct FetchDatabaseChangesResult: Sendable, Hashable {
    /// In the order the server reported them.
    public var changedZoneIDs: [RecordZoneID] = []
    public var deletedZoneIDs: [RecordZoneID] = []
    public var purgedZoneIDs: [RecordZoneID] = []
    public var encryptedDataResetZoneIDs: [RecordZoneID] = []
    /// The tokens `changeTokenUpdatedBlock` received, one per non-final batch.
    public var intermediateTokens: [ServerChangeToken] = []
    /// The token to cache: the final one, or after an interruption the last
    /// batch's (`nil` only if interrupted before the first batch with no previous token).
    public var serverChangeToken: ServerChangeToken?
    public var moreComing = false
    public var batchCount = 0
    /// The operation stopped at its `batchLimit` before the server had sent everything.
    public var wasInterrupted = false

    public init() {}
}
