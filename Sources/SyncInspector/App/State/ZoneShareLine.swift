import SyncCore
import SyncWorlds

/// A line of the zones pane under a zone that has a `CKShare`: the share
/// itself (zone-wide or for a record, its public permission, its URL or
/// short GUID; in a participant's shared database, who shared it), then one
/// line per participant (who, permission, acceptance status, type). Not
/// selectable: the zone above it is.
public struct ZoneShareLine: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        case share(ServerShare)
        /// One participant; `nameWidth` lines up the participants of one share.
        case participant(ServerShare.Participant, nameWidth: Int)
    }

    /// The zone the line belongs to.
    public var zone: ZoneKey
    public var kind: Kind
    /// The user whose zones the pane lists (to tell the owner's view from a participant's).
    public var viewer: String

    /// The lines under `entry`: for each of its shares, the share and its participants.
    static func lines(of entry: ZoneEntry, viewer: String) -> [ZoneShareLine] {
        lines(of: entry.shares, zone: entry.key, viewer: viewer)
    }

    /// The lines under `zone`, whose shares are `shares`, in `viewer`'s list of zones.
    static func lines(of shares: [ServerShare], zone: ZoneKey, viewer: String) -> [ZoneShareLine] {
        shares.flatMap { share in
            let nameWidth = share.participants.map { TextWidth.of($0.user) }.max() ?? 0
            return [ZoneShareLine(zone: zone, kind: .share(share), viewer: viewer)]
                + share.participants.map { ZoneShareLine(zone: zone, kind: .participant($0, nameWidth: nameWidth), viewer: viewer) }
        }
    }

    /// The line's text: "  ⤷ CKShare, zone-wide · public NONE · guid 6gVq…" (the
    /// owner's), "  ⤷ shared by alice · zone-wide · public NONE · guid 6gVq…", or
    /// "    bob   READ_WRITE ACCEPTED PRIVATE_USER" (the owner's type: `OWNER`).
    public var text: String {
        switch kind {
        case .share(let share):
            // A record share names its root record when the server says it, else its own record.
            let what = share.isZoneWide ? "zone-wide" : share.rootRecordName.map { "record \($0)" } ?? "record share \(share.recordName)"
            var parts = share.owner == viewer ? ["CKShare, \(what)"] : ["shared by \(share.owner)", what]
            parts.append("public \(share.publicPermission)")
            if let url = share.url {
                parts.append(url)
            } else if let guid = share.shortGUID {
                parts.append("guid \(guid)")
            }
            return "  ⤷ " + parts.joined(separator: " · ")
        case .participant(let participant, let nameWidth):
            let name = participant.user + String(repeating: " ", count: max(0, nameWidth - TextWidth.of(participant.user)))
            let you = participant.user == viewer ? " (you)" : ""
            return "    \(name) \(participant.permission) \(participant.acceptanceStatus) \(participant.type)\(you)"
        }
    }

    /// Whether the line is an invitation not accepted yet (shown as a warning).
    public var isPending: Bool {
        if case .participant(let participant, _) = kind { return participant.acceptanceStatus == "PENDING" }
        return false
    }

    /// Draws the line across the whole of `row` (over the columns of the zones' table):
    /// muted, an invitation not accepted yet as a warning.
    func draw(into buffer: inout CellBuffer, row: Rect, theme: Theme) {
        buffer.fill(row, style: theme.normal)
        buffer.write(text, x: row.x, y: row.y, style: isPending ? theme.warning : theme.muted, clip: row)
    }
}
