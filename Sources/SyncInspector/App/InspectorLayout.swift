import SyncCore
import SyncWorlds

/// Where everything goes on a screen of a given size. Pure: the view draws
/// with it and the key handler pages with it, so both agree.
///
/// ```
/// row 0            devices
/// ┌ Zones ─────────┐┌ Records ───────────┐
/// └────────────────┘└────────────────────┘
/// ┌ Tokens ────────┐┌ Notifications ─────┐
/// └────────────────┘└────────────────────┘
/// ┌ Events ─────────────────────────────┐   (only on tall screens; in a
///                                            lesson: the lesson pane, events beside it)
/// row h-4          the focused pane's keys
/// row h-3, h-2     last action's result (one row on short screens)
/// row h-1          status line
/// ```
///
/// Zoomed (`Z`), the focused pane takes every row from the header to the
/// message line, and the other panes are not drawn.
public struct InspectorLayout: Hashable, Sendable {
    public var size: Size
    public var header: Rect
    public var zones: Rect
    public var records: Rect
    public var tokens: Rect
    public var notifications: Rect
    public var events: Rect?
    /// The lesson's narrative pane (lessons only; it takes the events pane's place).
    public var lesson: Rect?
    public var message: Rect
    public var status: Rect
    /// The focused pane's keys, on the last row.
    public var keys: Rect
    /// The pane that fills the screen, if one is zoomed.
    public var zoomed: InspectorPane?

    /// Screens at least this tall get an events pane.
    public static let eventsPaneMinimumHeight = 34
    /// Screens at least this tall give the message line two rows.
    public static let twoLineMessageMinimumHeight = 30

    public init(size: Size, hasLesson: Bool = false, zoomed: InspectorPane? = nil) {
        self.size = size
        self.zoomed = zoomed
        let width = size.width
        let height = size.height
        header = Rect(x: 0, y: 0, width: width, height: min(1, height))
        status = Rect(x: 0, y: max(0, height - 1), width: width, height: height >= 2 ? 1 : 0)
        // Two lines for the last action's result on screens with room for them.
        let messageHeight = height >= Self.twoLineMessageMinimumHeight ? 2 : 1
        message = Rect(x: 0, y: max(0, height - 1 - messageHeight), width: width, height: height >= 3 ? messageHeight : 0)
        let keysHeight = height >= 4 ? 1 : 0
        keys = Rect(x: 0, y: max(0, height - 1 - messageHeight - keysHeight), width: width, height: keysHeight)
        let gridTop = 1
        var gridHeight = max(0, height - 2 - keysHeight - messageHeight)
        events = nil
        lesson = nil
        if let zoomed {
            let all = Rect(x: 0, y: gridTop, width: width, height: gridHeight)
            let none = Rect(x: 0, y: gridTop, width: 0, height: 0)
            zones = zoomed == .zones ? all : none
            records = zoomed == .records ? all : none
            tokens = zoomed == .tokens ? all : none
            notifications = zoomed == .notifications ? all : none
            events = zoomed == .events ? all : nil
            return
        }
        if hasLesson {
            let lessonHeight = min(16, max(8, gridHeight * 2 / 5))
            gridHeight -= lessonHeight
            // The event log stays visible in lessons, to the right of the narrative.
            let eventsWidth = width >= 72 ? width * 2 / 5 : 0
            lesson = Rect(x: 0, y: gridTop + gridHeight, width: width - eventsWidth, height: lessonHeight)
            if eventsWidth > 0 {
                events = Rect(x: width - eventsWidth, y: gridTop + gridHeight, width: eventsWidth, height: lessonHeight)
            }
        } else if height >= Self.eventsPaneMinimumHeight {
            let eventsHeight = min(14, max(8, gridHeight / 3))
            gridHeight -= eventsHeight
            events = Rect(x: 0, y: gridTop + gridHeight, width: width, height: eventsHeight)
        }
        let leftWidth = min(max(44, width * 45 / 100), 76, width)
        let rightWidth = max(0, width - leftWidth)
        let topHeight = (gridHeight * 55 + 99) / 100
        let bottomHeight = gridHeight - topHeight
        zones = Rect(x: 0, y: gridTop, width: leftWidth, height: topHeight)
        records = Rect(x: leftWidth, y: gridTop, width: rightWidth, height: topHeight)
        tokens = Rect(x: 0, y: gridTop + topHeight, width: leftWidth, height: bottomHeight)
        notifications = Rect(x: leftWidth, y: gridTop + topHeight, width: rightWidth, height: bottomHeight)
    }

    public func rect(of pane: InspectorPane) -> Rect {
        switch pane {
        case .zones: zones
        case .records: records
        case .tokens: tokens
        case .notifications: notifications
        case .events: events ?? Rect(x: 0, y: 0, width: 0, height: 0)
        }
    }

    /// The pane drawn at a cell, if any.
    public func pane(at x: Int, y: Int) -> InspectorPane? {
        InspectorPane.allCases.first { rect(of: $0).contains(x: x, y: y) }
    }

    /// Rows a pane's table shows (inside the border, under the column header,
    /// above the pane's footer lines).
    public func visibleRows(of pane: InspectorPane) -> Int {
        let inner = rect(of: pane).inset(by: 1)
        return max(0, inner.height - headerLines(of: pane) - footerLines(of: pane))
    }

    /// Column headers above a pane's rows (the event log has none: every line counts).
    func headerLines(of pane: InspectorPane) -> Int {
        pane == .events ? 0 : 1
    }

    /// Lines under a pane's table (how the selected zone's tokens compare, the
    /// records legend, the notification details).
    func footerLines(of pane: InspectorPane) -> Int {
        let inner = rect(of: pane).inset(by: 1)
        switch pane {
        case .events: return inner.height >= 10 ? 1 : 0
        case .records: return inner.height >= 6 ? 1 : 0
        case .notifications: return inner.height >= 6 ? 1 : 0
        case .tokens: return inner.height >= 6 ? 1 : 0
        // The zones' footer only where it leaves room for the zones (not in a lesson's short pane).
        case .zones: return inner.height >= 8 ? 1 : 0
        }
    }
}

/// A table column that can be dropped when the pane is narrow.
struct ColumnSpec {
    var title: String
    /// Columns a fixed column takes; the least a flexible one takes.
    var width: Int
    var alignment: Alignment = .left
    /// 0: always shown; higher numbers are dropped first.
    var priority: Int = 0
    var flexible = false
    /// How much of the spare room a flexible column takes, relative to the others.
    var weight = 1

    /// The columns that fit in `width` (with one space between neighbours),
    /// as indices into `specs` and table columns.
    static func fit(_ specs: [ColumnSpec], width: Int) -> (indices: [Int], columns: [TableColumn]) {
        var kept = Array(specs.indices)
        func needed(_ indices: [Int]) -> Int {
            indices.reduce(0) { $0 + specs[$1].width } + max(0, indices.count - 1)
        }
        while needed(kept) > width,
              let drop = kept.filter({ specs[$0].priority > 0 }).max(by: { (specs[$0].priority, $0) < (specs[$1].priority, $1) }) {
            kept.removeAll { $0 == drop }
        }
        let columns = kept.map { index -> TableColumn in
            let spec = specs[index]
            return TableColumn(spec.title, width: spec.flexible ? .ratio(spec.weight) : .fixed(spec.width), alignment: spec.alignment)
        }
        return (kept, columns)
    }
}

/// Text for times, counts and tokens.
enum Format {
    /// "14:03:07" (UTC) for a simulation time.
    static func clock(_ time: Milliseconds) -> String {
        let seconds = Int((time / 1000) % 86_400 + 86_400) % 86_400
        return pad2(seconds / 3600) + ":" + pad2(seconds / 60 % 60) + ":" + pad2(seconds % 60)
    }

    /// "03:07" (minutes and seconds) for narrow columns.
    static func shortClock(_ time: Milliseconds) -> String {
        let seconds = Int((time / 1000) % 86_400 + 86_400) % 86_400
        return pad2(seconds / 60 % 60) + ":" + pad2(seconds % 60)
    }

    static func pad2(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }

    /// "14:03:07.250" (UTC, to the millisecond) for the event log.
    static func preciseClock(_ time: Milliseconds) -> String {
        let millis = Int((time % 1000 + 1000) % 1000)
        let digits = millis < 10 ? "00\(millis)" : millis < 100 ? "0\(millis)" : "\(millis)"
        return clock(time) + "." + digits
    }

    /// "…abc1234", or "—" for none.
    static func token(_ token: ServerChangeToken?) -> String {
        token.map { "…" + $0.shortForm } ?? "—"
    }

    /// "250ms", "1.2s", "3m" (the event log's wording).
    static func duration(_ milliseconds: Milliseconds) -> String {
        WorldEvent.duration(milliseconds)
    }

    /// "999", "1.2k", "100k".
    static func count(_ value: Int) -> String {
        if value < 1000 { return "\(value)" }
        if value < 10_000 {
            let hundreds = value / 100
            return "\(hundreds / 10).\(hundreds % 10)k"
        }
        if value < 1_000_000 { return "\(value / 1000)k" }
        return "\(value / 1_000_000)M"
    }

    /// "×1", "×0.5", "×20".
    static func speed(_ speed: Double) -> String {
        if speed == speed.rounded() { return "×\(Int(speed))" }
        return "×\(speed)"
    }

    /// "3 s", "1.5 s".
    static func seconds(_ milliseconds: Milliseconds) -> String {
        if milliseconds % 1000 == 0 { return "\(milliseconds / 1000) s" }
        return "\(Double(milliseconds) / 1000) s"
    }
}
