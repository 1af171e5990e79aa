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
    /// The code the lesson's step stands for (lessons only: beside the
    /// narration on `C`, and in the presenter layout when the step has code).
    public var code: Rect?

    /// How a lesson's screen is arranged.
    public enum LessonArrangement: Hashable, Sendable {
        /// The four panes above; below them the lesson pane, and beside it
        /// the event log, or the step's code (`code`).
        case panes(code: Bool)
        /// The lesson pane fills the screen (`Z` on it).
        case narrationZoomed
        /// The presenter layout: the narration large, the step's code beside
        /// it (`code`), the panes the step touched enlarged and the others
        /// shrunk to their title (or left out when there is no room).
        case presenter(touched: Set<LessonPane>, code: Bool)

        var replacesTheGrid: Bool {
            if case .panes = self { return false }
            return true
        }
    }

    /// Screens at least this tall get an events pane.
    public static let eventsPaneMinimumHeight = 34
    /// Screens at least this tall give the message line two rows.
    public static let twoLineMessageMinimumHeight = 30

    public init(size: Size, hasLesson: Bool = false, zoomed: InspectorPane? = nil, arrangement: LessonArrangement = .panes(code: false)) {
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
        code = nil
        let grid = Rect(x: 0, y: gridTop, width: width, height: gridHeight)
        let none = Rect(x: 0, y: gridTop, width: 0, height: 0)
        if hasLesson, zoomed == nil, arrangement.replacesTheGrid {
            zones = none
            records = none
            tokens = none
            notifications = none
            if case .presenter(let touched, let hasCode) = arrangement {
                arrangePresenter(in: grid, touched: touched, hasCode: hasCode)
            } else {
                lesson = grid
            }
            return
        }
        if let zoomed {
            let all = grid
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
            // The event log stays visible in lessons, to the right of the
            // narrative; or the step's code, wider (`C`).
            let showsCode = arrangement == .panes(code: true)
            let besideWidth = width >= 72 ? (showsCode ? width / 2 : width * 2 / 5) : 0
            lesson = Rect(x: 0, y: gridTop + gridHeight, width: width - besideWidth, height: lessonHeight)
            if besideWidth > 0 {
                let beside = Rect(x: width - besideWidth, y: gridTop + gridHeight, width: besideWidth, height: lessonHeight)
                if showsCode { code = beside } else { events = beside }
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

    /// The presenter layout in `grid`. Wide: the narration and, under it,
    /// the code on the left, the panes on the right. Narrow: the narration
    /// across the top; under it the code and the panes side by side (the
    /// panes alone when the step has no code). The panes the step touched
    /// share the room left; the others keep only their title bar when there
    /// is room for it.
    private mutating func arrangePresenter(in grid: Rect, touched: Set<LessonPane>, hasCode: Bool) {
        let wide = grid.width >= 100
        var panesArea: Rect
        if wide {
            let leftWidth = grid.width * (hasCode ? 55 : 45) / 100
            let left = Rect(x: grid.x, y: grid.y, width: leftWidth, height: grid.height)
            panesArea = Rect(x: grid.x + leftWidth, y: grid.y, width: grid.width - leftWidth, height: grid.height)
            if hasCode {
                let narrationHeight = max(6, left.height * 40 / 100)
                lesson = Rect(x: left.x, y: left.y, width: left.width, height: narrationHeight)
                code = Rect(x: left.x, y: left.y + narrationHeight, width: left.width, height: left.height - narrationHeight)
            } else {
                lesson = left
            }
        } else {
            let narrationHeight = max(5, grid.height * (hasCode ? 40 : 45) / 100)
            lesson = Rect(x: grid.x, y: grid.y, width: grid.width, height: narrationHeight)
            let below = Rect(x: grid.x, y: grid.y + narrationHeight, width: grid.width, height: max(0, grid.height - narrationHeight))
            if hasCode {
                let codeWidth = below.width * 60 / 100
                code = Rect(x: below.x, y: below.y, width: codeWidth, height: below.height)
                panesArea = Rect(x: below.x + codeWidth, y: below.y, width: below.width - codeWidth, height: below.height)
            } else {
                panesArea = below
            }
        }
        // A step that touched no pane (narration) shows the zones and records.
        let order: [LessonPane] = [.zones, .records, .tokens, .notifications, .events]
        let enlarged = order.filter { (touched.isEmpty ? [.zones, .records] : touched).contains($0) }
        let shrunk = order.filter { !enlarged.contains($0) && $0 != .events }
        let titleBar = 2
        let minimum = 4
        let bars = panesArea.height - enlarged.count * minimum >= shrunk.count * titleBar ? shrunk : []
        var heights: [LessonPane: Int] = [:]
        var room = panesArea.height - bars.count * titleBar
        // As many enlarged panes as fit at their minimum, sharing what is left.
        let fitting = enlarged.prefix(max(0, room / minimum))
        for (index, pane) in fitting.enumerated() {
            let share = room / (fitting.count - index)
            heights[pane] = share
            room -= share
        }
        for pane in bars { heights[pane] = titleBar }
        var y = panesArea.y
        for pane in order {
            guard let height = heights[pane], height > 0 else { continue }
            let rect = Rect(x: panesArea.x, y: y, width: panesArea.width, height: height)
            y += height
            switch pane {
            case .zones: zones = rect
            case .records: records = rect
            case .tokens: tokens = rect
            case .notifications: notifications = rect
            case .events: events = rect
            }
        }
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
