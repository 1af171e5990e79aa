import Foundation
import SyncCore

/// How long and how much the server keeps of paged queries (see
/// ``ServerEngine/queryPaging``).
public struct QueryPagingLimits: Sendable, Hashable {
    /// A snapshot not used for this long expires (its markers then answer
    /// `BAD_REQUEST`, "has expired"). Read on the engine's clock.
    public var idleExpiry: Milliseconds
    /// At most this many snapshots at once; the least recently used goes first.
    public var maxSnapshots: Int
    /// At most this many remembered records over all snapshots (the least
    /// recently used snapshots go first); a single query larger than this is
    /// still kept, alone.
    public var maxEntries: Int

    public init(idleExpiry: Milliseconds = 10 * 60 * 1000, maxSnapshots: Int = 256, maxEntries: Int = 1_000_000) {
        self.idleExpiry = idleExpiry
        self.maxSnapshots = maxSnapshots
        self.maxEntries = maxEntries
    }
}
