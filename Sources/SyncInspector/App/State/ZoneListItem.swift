import SyncCore
import SyncClient

/// A row of the zones pane: a database heading, a zone, or a line of a zone's share.
public enum ZoneListItem: Hashable, Sendable {
    case header(DatabaseScope)
    case zone(ZoneEntry)
    /// A share of the zone above, or one of its participants (``ZoneShareLine``).
    case share(ZoneShareLine)

    public var entry: ZoneEntry? {
        if case .zone(let entry) = self { return entry }
        return nil
    }
}
