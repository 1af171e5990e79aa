import Foundation

/// One answer of the event feed's long-poll: the events after the `after`
/// the watcher sent, and what to send next. Ours, not CloudKit's.
public struct WireServerEvents: Codable, Sendable, Hashable {
    /// The node that answered (a shared journal's nodes each keep a feed).
    public var node: String
    public var events: [WireServerEvent]
    /// The `after` of the next poll.
    public var next: UInt64
    /// Events after `after` the ring no longer held (it keeps the latest `serve --event-feed N`).
    public var missed: UInt64

    public init(node: String, events: [WireServerEvent], next: UInt64, missed: UInt64) {
        self.node = node
        self.events = events
        self.next = next
        self.missed = missed
    }
}
