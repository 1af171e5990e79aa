import SyncCore

/// Errors the client side of sync raises itself (server errors are `CloudError`).
public enum SyncClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The operation stopped after its `batchLimit` of batches (or the sync
    /// engine's `stopAfterBatches`), as if the app had been killed there.
    /// Every batch before the stop was delivered with its token; fetch again
    /// to resume from the last cached token.
    case interrupted(afterBatches: Int)
    /// `cancel()` was called before the operation finished.
    case cancelled
    /// The local store could not be read or written.
    case storeFailure(String)

    public var description: String {
        switch self {
        case .interrupted(let n):
            "The fetch was interrupted after \(n) batch\(n == 1 ? "" : "es"); the tokens of the batches before the stop are cached, so the next fetch resumes there."
        case .cancelled:
            "The operation was cancelled before it finished."
        case .storeFailure(let message):
            "The local store failed: \(message)"
        }
    }
}
