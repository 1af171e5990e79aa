import SyncCore
import SyncWorlds

/// The mouse, `y` (copy) and the footer's keys: what people who use k9s,
/// lazygit or htop reach for. Pure, like the rest of ``InspectorKeys``.
extension InspectorKeys {
    /// Rows the wheel moves per notch.
    static let wheelStep = 3

    /// A click focuses the pane under the pointer and selects the row
    /// clicked; the wheel moves the selection of the pane under the pointer.
    static func handleMouse(_ mouse: MouseEvent, state: inout InspectorState) -> [InspectorCommand] {
        let layout = state.layout
        if let lesson = layout.lesson, lesson.contains(x: mouse.x, y: mouse.y), state.snapshot.lesson != nil {
            if mouse.action == .press, !state.lessonMode.narrativeFocused {
                state.lessonMode.narrativeFocused = true
                state.needsRedraw = true
            }
            return []
        }
        guard let pane = layout.pane(at: mouse.x, y: mouse.y) else { return [] }
        if state.pane != pane || state.lessonMode.narrativeFocused {
            state.pane = pane
            state.lessonMode.narrativeFocused = false
            state.needsRedraw = true
        }
        switch mouse.action {
        case .press:
            // Under the border and the column header.
            let line = mouse.y - layout.rect(of: pane).y - 1 - layout.headerLines(of: pane)
            guard line >= 0, line < layout.visibleRows(of: pane) else { return [] }
            select(line: line, in: pane, state: &state)
        case .wheelUp, .wheelDown:
            let key: KeyEvent = mouse.action == .wheelUp ? .up : .down
            for _ in 0..<wheelStep { move(key, state: &state) }
        }
        return []
    }

    /// Selects the row shown on `line` (0: the first row under the header) of `pane`.
    static func select(line: Int, in pane: InspectorPane, state: inout InspectorState) {
        let visible = max(1, state.layout.visibleRows(of: pane))
        func target(_ table: TableState, count: Int) -> Int? {
            let index = table.visibleOffset(rowCount: count, visibleRows: visible) + line
            return index < count ? index : nil
        }
        switch pane {
        case .zones:
            let items = state.snapshot.zones
            guard let index = target(state.zoneTable, count: items.count), let entry = items[index].entry else { return }
            state.zoneTable.select(index, rowCount: items.count, visibleRows: visible)
            state.chooseZone(entry.key)
        case .records:
            let count = state.snapshot.records.count
            guard let index = target(state.recordTable, count: count) else { return }
            state.recordTable.select(index, rowCount: count, visibleRows: visible)
            state.selectedRecordName = state.record?.name
        case .tokens:
            let count = state.snapshot.tokens.count
            guard let index = target(state.tokenTable, count: count) else { return }
            state.tokenTable.select(index, rowCount: count, visibleRows: visible)
            state.tokenSelection = index == 0 ? nil : state.snapshot.tokenTotal - 1 - index
        case .notifications:
            let entries = state.snapshot.notifications
            guard let index = target(state.notificationTable, count: entries.count) else { return }
            state.notificationTable.select(index, rowCount: entries.count, visibleRows: visible)
            state.notificationSelection = index == 0 ? nil : entries[index].index
        case .events:
            let events = state.snapshot.events
            let lines = EventLog.lines(events, state: state.eventLog)
            let table = EventLog.tableState(lines: lines, events: events, state: state.eventLog, visibleRows: visible)
            guard let index = target(table, count: lines.count) else { return }
            state.eventLog.selectedEvent = events[lines[index].first].number
            state.eventLog.offset = table.visibleOffset(rowCount: lines.count, visibleRows: visible)
        }
        state.needsRedraw = true
    }

    // MARK: Copy

    /// `y`: the focused pane's selection as a copy command (or a sentence
    /// saying there is nothing to copy).
    static func copySelection(state: inout InspectorState) -> [InspectorCommand] {
        switch state.pane {
        case .zones:
            guard let zone = state.zone else {
                say("Select a zone first; y copies its device token.", kind: .warning, state: &state)
                return []
            }
            if let token = zone.deviceToken ?? zone.serverToken {
                let whose = zone.deviceToken != nil ? state.device?.name ?? "the device" : "the server"
                return [.copy(token.rawValue, what: "\(whose)'s token for \(zone.zoneID.zoneName) (…\(token.shortForm))")]
            }
            return [.copy(zone.zoneID.zoneName, what: "zone name \(zone.zoneID.zoneName)")]
        case .records:
            guard let row = state.record else {
                say("Select a record first; y copies its name.", kind: .warning, state: &state)
                return []
            }
            return [.copy(row.name, what: "record name \(row.name)")]
        case .tokens:
            let tokens = state.snapshot.tokens
            let row = state.tokenTable.selection ?? 0
            guard tokens.indices.contains(tokens.count - 1 - row) else {
                say("No token yet to copy: press f to fetch.", kind: .warning, state: &state)
                return []
            }
            let token = tokens[tokens.count - 1 - row].token
            return [.copy(token.rawValue, what: "token …\(token.shortForm)")]
        case .notifications:
            let entries = state.snapshot.notifications
            guard let row = state.notificationTable.selection, entries.indices.contains(row) else {
                say("No notification to copy.", kind: .warning, state: &state)
                return []
            }
            let id = entries[row].notification.notificationID
            return [.copy(id, what: "notification \(WorldEvent.tag(id))'s ID")]
        case .events:
            guard let text = EventLog.selectedText(state) else {
                say("Nothing happened yet to copy.", kind: .warning, state: &state)
                return []
            }
            return [.copy(text, what: "the log line")]
        }
    }

    // MARK: Footer

    /// The focused pane's keys for the footer line, most useful first.
    public static func paneKeys(_ state: InspectorState) -> [HelpEntry] {
        if state.snapshot.lesson != nil, state.lessonMode.narrativeFocused {
            return [HelpEntry("Enter", "next step"), HelpEntry("p", "back"), HelpEntry("t", "outline"), HelpEntry("Tab", "panes")]
        }
        let zoom = state.zoomed ? HelpEntry("Esc", "unzoom") : HelpEntry("Z", "zoom")
        switch state.pane {
        case .zones:
            return [HelpEntry("j/k", "zone"), HelpEntry("Enter", "records"), zoom, HelpEntry("y", "copy token"), HelpEntry("E", "log"),
                    HelpEntry("f", "fetch"), HelpEntry("z", "new zone")]
        case .records:
            return [HelpEntry("j/k", "record"), HelpEntry("S", "sort: \(state.recordSort.column)\(state.recordSort.indicator)"), zoom,
                    HelpEntry("y", "copy name"), HelpEntry("i", "open"), HelpEntry("n", "new"), HelpEntry("e", "edit"), HelpEntry("/", "filter")]
        case .tokens:
            return [HelpEntry("j/k", "token: rewind"), zoom, HelpEntry("y", "copy token"), HelpEntry("E", "log"), HelpEntry("f", "fetch")]
        case .notifications:
            return [HelpEntry("j/k", "push"), zoom, HelpEntry("y", "copy ID"), HelpEntry("E", "log"), HelpEntry("a", "auto-fetch"), HelpEntry("o", "offline")]
        case .events:
            let follow = state.eventLog.isFollowing ? HelpEntry("k", "scroll back") : HelpEntry("G", "newest")
            return [follow, HelpEntry("Enter", "open ▸"), HelpEntry("K", "kind"), HelpEntry("V", "device"), zoom, HelpEntry("y", "copy")]
        }
    }
}
