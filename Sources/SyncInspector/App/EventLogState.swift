import SyncCore
import SyncWorlds

/// The event log's scroll position, filters and opened fetches: the
/// person's choices, kept by event number so new events do not move them.
public struct EventLogState: Hashable, Sendable {
    /// The selected line, by the number of its (first) event; `nil` follows
    /// the newest line.
    public var selectedEvent: Int?
    /// The first line shown when a line is selected (as ``TableState/offset``).
    public var offset = 0
    /// Only this device's events (`nil`: every device's, and the world's).
    public var device: String?
    /// Only events of this kind (`nil`: every kind).
    public var category: EventCategory?
    /// Fetches shown line by line, by the number of their first event.
    public var expanded: Set<Int> = []

    public init() {}

    /// Whether the log follows the newest line.
    public var isFollowing: Bool { selectedEvent == nil }
}
