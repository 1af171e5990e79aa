import SyncWire

/// The keys of the inspector on a server (pure: the state changes, and the
/// effects to start come back). `?` lists them on screen (``ServerWatchView``).
public enum ServerWatchKeys {
    /// Each key and what it does, for the help view.
    public static let help: [(key: String, does: String)] = [
        ("Tab / Shift-Tab", "the next or previous pane"),
        ("↑ ↓ PgUp PgDn Home End", "move in the pane (clients: focus a client; zones: show its records)"),
        ("Enter", "a request: its body and the answer; a diagnosis: its evidence and lesson"),
        ("c z r t e d", "the clients, zones, records, token history, requests or diagnostics pane"),
        ("n", "rename the focused client (type the name; Enter gives it, Esc lets it go)"),
        ("Esc", "close what Enter or ? opened"),
        ("Ctrl-L", "draw the whole screen again"),
        ("q", "quit"),
    ]

    static func handle(_ key: KeyEvent, state: inout InspectorState) -> [InspectorEffect] {
        if state.watch.renaming != nil { return renameKey(key, state: &state) }
        if state.watch.detail != nil { return detailKey(key, state: &state) }
        let layout = ServerWatchLayout(size: state.screenSize)
        let pane = state.watch.pane
        switch key {
        case .character("q"):
            return [.quit]
        case .control("L"), .control("l"):
            return [.repaint]
        case .tab:
            focus(ServerWatchPane(rawValue: (pane.rawValue + 1) % ServerWatchPane.allCases.count) ?? .clients, state: &state)
        case .backTab:
            let count = ServerWatchPane.allCases.count
            focus(ServerWatchPane(rawValue: (pane.rawValue + count - 1) % count) ?? .clients, state: &state)
        case .character("c"): focus(.clients, state: &state)
        case .character("z"): focus(.zones, state: &state)
        case .character("r"): focus(.records, state: &state)
        case .character("t"): focus(.tokens, state: &state)
        case .character("e"): focus(.requests, state: &state)
        case .character("d"): focus(.diagnostics, state: &state)
        case .character("n"):
            guard let client = state.watch.focusedClient else {
                state.message = InspectorMessage("No client to rename yet: one appears when it calls the server.")
                state.needsRedraw = true
                return []
            }
            state.watch.renaming = ClientRenaming(key: client.key, from: client.name, text: client.name)
            state.needsRedraw = true
        case .character("?"):
            state.watch.detail = .help
            state.watch.detailScroll = 0
            state.needsRedraw = true
        case .enter:
            return enter(state: &state)
        case .up, .down, .pageUp, .pageDown, .home, .end:
            return move(key, pane: pane, layout: layout, state: &state)
        default:
            return []
        }
        return []
    }

    /// A key while a client's new name is typed: text edits it, Enter gives it to the server, Esc lets it go.
    private static func renameKey(_ key: KeyEvent, state: inout InspectorState) -> [InspectorEffect] {
        guard var renaming = state.watch.renaming else { return [] }
        state.needsRedraw = true
        switch key {
        case .escape:
            state.watch.renaming = nil
            state.message = InspectorMessage("The name is as it was.")
        case .enter:
            let name = renaming.text.trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else {
                state.message = InspectorMessage("A client's name cannot be empty; type one, or Esc.")
                return []
            }
            state.watch.renaming = nil
            state.message = InspectorMessage("Renaming \(renaming.from) to \(name)…")
            return [.renameClient(key: renaming.key, name: name)]
        case .backspace, .delete:
            if !renaming.text.isEmpty { renaming.text.removeLast() }
            state.watch.renaming = renaming
        case .character(let character):
            guard renaming.text.utf8.count + String(character).utf8.count <= WireClientRename.maxNameBytes else { return [] }
            renaming.text.append(character)
            state.watch.renaming = renaming
        default:
            break
        }
        return []
    }

    private static func focus(_ pane: ServerWatchPane, state: inout InspectorState) {
        state.watch.pane = pane
        state.needsRedraw = true
    }

    private static func move(_ key: KeyEvent, pane: ServerWatchPane, layout: ServerWatchLayout, state: inout InspectorState) -> [InspectorEffect] {
        let rows = layout.visibleRows(pane)
        switch pane {
        case .clients:
            let before = state.watch.focusedClient?.key
            guard state.watch.clientTable.handle(key, rowCount: state.watch.clients.count, visibleRows: rows) else { return [] }
            state.needsRedraw = true
            guard state.watch.focusedClient?.key != before else { return [] }
            // Another client: its history and traffic start at their newest lines.
            state.watch.tokenTable = TableState(selection: nil)
            state.watch.requestTable = TableState(selection: nil)
            state.watch.lags = []
            return ServerWatchReducer.read(&state)
        case .zones:
            let before = state.watch.selectedZone
            // A zone's share lines are not selectable: the selection goes from zone to zone.
            let zoneRows = state.watch.zoneRows
            guard state.watch.zoneTable.handle(key, rowCount: zoneRows.count, visibleRows: rows, selectable: { zoneRows[$0].zone != nil }) else { return [] }
            state.needsRedraw = true
            guard state.watch.selectedZone != before else { return [] }
            state.watch.zoneChosen = true
            state.watch.recordTable = TableState()
            return ServerWatchReducer.read(&state)
        case .records:
            if state.watch.recordTable.handle(key, rowCount: state.watch.records.count, visibleRows: rows) { state.needsRedraw = true }
        case .tokens:
            let count = state.watch.history.count
            followNewest(&state.watch.tokenTable, count: count)
            if state.watch.tokenTable.handle(key, rowCount: count, visibleRows: rows) { state.needsRedraw = true }
        case .requests:
            let count = state.watch.traffic.count
            followNewest(&state.watch.requestTable, count: count)
            if state.watch.requestTable.handle(key, rowCount: count, visibleRows: rows) { state.needsRedraw = true }
        case .diagnostics:
            if state.watch.diagnosisTable.handle(key, rowCount: state.watch.diagnoses.count, visibleRows: layout.visibleDiagnoses) { state.needsRedraw = true }
        }
        return []
    }

    /// A table that follows its newest line starts moving from it.
    private static func followNewest(_ table: inout TableState, count: Int) {
        if table.selection == nil, count > 0 { table.selection = count - 1 }
    }

    private static func enter(state: inout InspectorState) -> [InspectorEffect] {
        switch state.watch.pane {
        case .clients:
            state.watch.pane = .tokens
        case .zones:
            state.watch.pane = .records
        case .requests:
            let traffic = state.watch.traffic
            // With no line chosen, the newest (the one the pane follows).
            let index = state.watch.requestTable.selection ?? traffic.count - 1
            guard traffic.indices.contains(index) else { return [] }
            state.watch.detail = .event(seq: traffic[index].seq, node: traffic[index].node)
            state.watch.detailScroll = 0
        case .diagnostics:
            guard let index = state.watch.diagnosisTable.selection, state.watch.diagnoses.indices.contains(index) else { return [] }
            state.watch.detail = .diagnosis(index)
            state.watch.detailScroll = 0
        case .records, .tokens:
            return []
        }
        state.needsRedraw = true
        return []
    }

    private static func detailKey(_ key: KeyEvent, state: inout InspectorState) -> [InspectorEffect] {
        switch key {
        case .escape, .enter, .character("?"):
            state.watch.detail = nil
        case .character("q"):
            return [.quit]
        case .up: scrollDetail(by: -1, state: &state)
        case .down: scrollDetail(by: 1, state: &state)
        case .pageUp: scrollDetail(by: -max(1, state.screenSize.height - 4), state: &state)
        case .pageDown: scrollDetail(by: max(1, state.screenSize.height - 4), state: &state)
        case .home: state.watch.detailScroll = 0
        case .control("L"), .control("l"): return [.repaint]
        default: return []
        }
        state.needsRedraw = true
        return []
    }

    /// Scrolls the open detail by `lines`, never past its ends (so Up moves at once after scrolling to the bottom).
    private static func scrollDetail(by lines: Int, state: inout InspectorState) {
        guard let detail = state.watch.detail else { return }
        let shown = ServerWatchView().detailLines(detail, watch: state.watch, labels: state.watch.focus.labels)
        state.watch.detailScroll = ServerWatchView.clampedDetailScroll(state.watch.detailScroll + lines, lines: shown, size: state.screenSize)
    }
}
