import SyncCore

/// Where a `fetch` step's app is killed while it stores a batch
/// (`fetch: {…, crash: {batch: 2, storing: tokenFirst}}`).
public struct FetchCrash: Sendable, Equatable {
    /// How the app stores a batch of changes.
    public enum Storing: String, Sendable, Equatable, CaseIterable {
        /// The mistake: the batch's token is written on its own, first; the
        /// records come in a second write, which the crash prevents. The
        /// token then says "up to here" for records the device never stored.
        case tokenFirst
        /// The fix: the batch's records and its token are written in one
        /// transaction, which the crash prevents as a whole. The next fetch
        /// starts from the previous token and gets the batch again.
        case oneTransaction
    }

    /// The batch (1 for the first) during whose storing the app is killed.
    public var batch: Int
    public var storing: Storing

    public init(batch: Int, storing: Storing) {
        self.batch = batch
        self.storing = storing
    }
}
