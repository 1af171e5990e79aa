import SyncCore
import SyncClient

/// A row of the zones pane: a database heading or a zone.
public enum ZoneListItem: Hashable, Sendable {
    case header(DatabaseScope)
    case zone(ZoneEntry)

    public var entry: ZoneEntry? {
        if case .zone(let entry) = self { return entry }
        return nil
    }
}
