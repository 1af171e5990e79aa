/// A row of the zones pane of the inspector on a server: a user's zone, or
/// a line of its shares under it (not selectable: the zone above it is).
public enum WatchedZoneRow: Hashable, Sendable {
    case zone(WatchedZone)
    case share(ZoneShareLine)

    public var zone: WatchedZone? {
        if case .zone(let zone) = self { return zone }
        return nil
    }

    /// Each zone, then the lines of its shares.
    static func rows(of zones: [WatchedZone]) -> [WatchedZoneRow] {
        zones.flatMap { [.zone($0)] + $0.shareLines.map(WatchedZoneRow.share) }
    }
}
