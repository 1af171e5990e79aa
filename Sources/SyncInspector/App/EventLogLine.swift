import SyncCore
import SyncWorlds

/// A line of the event log: one event, a fetch folded into one line, or
/// one event of an opened fetch.
public struct EventLogLine: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        case event
        /// A fetch's events under one line (`members` are all of them).
        case fetch(expanded: Bool)
        /// One event of an opened fetch.
        case member
    }

    public var kind: Kind
    /// Indices into the events the lines were built from: one, or a fetch's.
    public var members: [Int]

    /// The event the line stands for (a fetch: its first).
    public var first: Int { members[0] }
}
