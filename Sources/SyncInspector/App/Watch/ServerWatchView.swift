import SyncCore
import SyncDoctor
import SyncWire

/// Draws the inspector on a server (``ServerWatchState``): a pure function
/// of the state and the screen size, as ``InspectorView`` is. Tokens are
/// opaque and long: each of a client's tokens is shown as `T1`, `T2`, … in
/// the order it first appears in the client's traffic (``TokenLabels``);
/// Enter on a request shows them whole.
public struct ServerWatchView {
    public var theme: Theme

    public init(theme: Theme = .monochrome) {
        self.theme = theme
    }

    public func render(_ state: InspectorState, size: Size) -> CellBuffer {
        guard size.fits(TooSmallScreen.minimumSize) else {
            return TooSmallScreen.render(size: size, minimum: TooSmallScreen.minimumSize, theme: theme)
        }
        var buffer = CellBuffer(size: size, style: theme.normal)
        let layout = ServerWatchLayout(size: size)
        let watch = state.watch
        let focus = watch.focus
        drawHeader(state, into: &buffer, area: layout.header)
        drawClients(watch, into: &buffer, area: layout.clients)
        drawZones(watch, into: &buffer, area: layout.zones)
        drawRecords(watch, into: &buffer, area: layout.records)
        drawTokens(watch, focus: focus, into: &buffer, area: layout.tokens)
        drawRequests(watch, traffic: focus.traffic, into: &buffer, area: layout.requests)
        drawDiagnoses(watch, into: &buffer, area: layout.diagnostics, layout: layout)
        drawMessage(state, into: &buffer, area: layout.message)
        if let detail = watch.detail {
            drawDetail(detailLines(detail, watch: watch, labels: focus.labels), title: detailTitle(detail), scroll: watch.detailScroll, into: &buffer, size: size)
        }
        return buffer
    }

    // MARK: Header and message line

    private func drawHeader(_ state: InspectorState, into buffer: inout CellBuffer, area: Rect) {
        buffer.fill(area, style: theme.statusLine)
        let watch = state.watch
        let x = buffer.write(" SyncScope ", x: area.x, y: area.y, style: theme.statusLine.adding(.bold), clip: area)
        let diagnoses = watch.diagnoses.isEmpty ? "no diagnosis" : Plural.count(watch.diagnoses.count, "diagnosis", plural: "diagnoses")
        let text = "│ a server, live │ \(Plural.count(watch.clients.count, "client")) │ \(Plural.count(watch.users.count, "user")) │ \(diagnoses) │"
        buffer.write(text, x: x, y: area.y, style: theme.statusLine, clip: area)
    }

    private func drawMessage(_ state: InspectorState, into buffer: inout CellBuffer, area: Rect) {
        buffer.fill(area, style: theme.normal)
        if let renaming = state.watch.renaming {
            let x = buffer.write("Rename \(renaming.from) to: ", x: area.x + 1, y: area.y, style: theme.normal.adding(.bold), clip: area)
            let end = buffer.write(renaming.text, x: x, y: area.y, style: theme.selection, clip: area)
            buffer.write("▏ Enter gives the name, Esc lets it go", x: end, y: area.y, style: theme.muted, clip: area)
        } else if let problem = state.watch.problem {
            // One line: a sentence cut at its edge ends with "…".
            buffer.write(TextWidth.truncate("✗ " + problem, to: area.width - 1), x: area.x + 1, y: area.y, style: theme.error, clip: area)
        } else if let message = state.message {
            buffer.write(TextWidth.truncate(message.text, to: area.width - 1), x: area.x + 1, y: area.y, style: theme.normal, clip: area)
        }
    }

    // MARK: Panes

    private func panel(_ pane: ServerWatchPane, _ title: String, watch: ServerWatchState, into buffer: inout CellBuffer, area: Rect) -> Rect {
        let focused = watch.pane == pane && watch.detail == nil
        return Panel(title: title, focused: focused, theme: theme).render(into: &buffer, area: area)
    }

    private func drawClients(_ watch: ServerWatchState, into buffer: inout CellBuffer, area: Rect) {
        let inner = panel(.clients, "Clients", watch: watch, into: &buffer, area: area)
        let rows = watch.clients.map { client in
            TableRow([client.name, "\(client.requests)", "\(client.errors)", "\(client.pushes)"])
        }
        Table(
            columns: [TableColumn("client"), TableColumn("req", width: .fixed(5), alignment: .right),
                      TableColumn("err", width: .fixed(4), alignment: .right), TableColumn("push", width: .fixed(4), alignment: .right)],
            focused: watch.pane == .clients, theme: theme, emptyMessage: "(no client has called yet)"
        ).render(into: &buffer, area: inner, rows: ArrayRowProvider(rows), state: watch.clientTable)
    }

    private func drawZones(_ watch: ServerWatchState, into buffer: inout CellBuffer, area: Rect) {
        // The zones are one container's (`inspect --container`): the title says whose, as clients may use others.
        var title = watch.container.isEmpty ? "Zones of every user" : "Zones in \(watch.container)"
        if !watch.environment.isEmpty, watch.environment != ContainerEnvironment.development.rawValue { title += " · \(watch.environment)" }
        let inner = panel(.zones, title, watch: watch, into: &buffer, area: area)
        let zoneRows = watch.zoneRows
        let rows = zoneRows.map { row in
            switch row {
            case .zone(let zone): TableRow([zone.label, zone.recordCount.map(String.init) ?? "–"])
            case .share: TableRow([])
            }
        }
        let table = Table(
            columns: [TableColumn("zone"), TableColumn("records", width: .fixed(7), alignment: .right)],
            focused: watch.pane == .zones, theme: theme, emptyMessage: "(reading the server…)")
        table.render(into: &buffer, area: inner, rows: ArrayRowProvider(rows), state: watch.zoneTable)
        // A share line spans the row, as in the in-process inspector's zones pane.
        let visible = table.visibleRows(in: inner)
        let first = watch.zoneTable.visibleOffset(rowCount: zoneRows.count, visibleRows: visible)
        for line in 0..<max(0, min(visible, zoneRows.count - first)) {
            guard case .share(let share) = zoneRows[first + line] else { continue }
            share.draw(into: &buffer, row: Rect(x: inner.x, y: inner.y + 1 + line, width: inner.width, height: 1), theme: theme)
        }
    }

    private func drawRecords(_ watch: ServerWatchState, into buffer: inout CellBuffer, area: Rect) {
        let title = watch.recordsZone.map { "Records · \($0.label)" } ?? "Records"
        let inner = panel(.records, title, watch: watch, into: &buffer, area: area)
        let rows = watch.records.map { record in
            TableRow([record.recordID.recordName, record.recordType, RecordRow.summary(of: record)])
        }
        Table(
            columns: [TableColumn("record", width: .ratio(2)), TableColumn("type", width: .ratio(1)), TableColumn("fields", width: .ratio(3))],
            focused: watch.pane == .records, theme: theme,
            emptyMessage: watch.recordsZone == nil ? "(no zone selected)"
                : watch.recordsZone?.recordCount == nil ? "(a default zone has no change fetching: its records are not read)" : "(no records)"
        ).render(into: &buffer, area: inner, rows: ArrayRowProvider(rows), state: watch.recordTable)
    }

    private func drawTokens(_ watch: ServerWatchState, focus: WatchFocus, into buffer: inout CellBuffer, area: Rect) {
        let title = watch.focusedClient.map { "Token history · \($0.name)" } ?? "Token history"
        let inner = panel(.tokens, title, watch: watch, into: &buffer, area: area)
        let history = focus.history
        let lags = watch.lagsClient == watch.focusedClient?.key ? watch.lags : []
        // Only the rows shown are made: a client's history may hold thousands of fetches.
        let rows = ClosureRowProvider(count: history.count) { index in
            let entry = history[index]
            var now = ""
            if let code = entry.errorCode {
                now = code
            } else if focus.latestIssued[entry.target] == index, let lag = lags.first(where: { $0.place == entry.target && $0.token == entry.issued }) {
                now = lag.text
            }
            // A fetch in another container than the one watched names it (its last part: `notes: private/Notes`).
            var place = entry.target
            if !focus.isWatched(entry), let container = focus.containers[entry.seq] {
                let short = container.split(separator: ".").last.map(String.init) ?? container
                place = "\(short): \(place.hasPrefix("zone ") ? String(place.dropFirst(5)) : place)"
            }
            return TableRow(
                [place, focus.labels.label(entry.presented), focus.labels.label(entry.issued), "\(entry.batch)", entry.moreComing ? "yes" : "",
                 entry.issued == nil ? "" : (entry.cameBack ? "yes" : "no"), now],
                style: entry.errorCode != nil ? theme.error : nil)
        }
        var table = watch.tokenTable
        if table.selection == nil { table.offset = max(0, rows.rowCount - max(1, inner.height - 1)) }
        Table(
            columns: [TableColumn("place", width: .ratio(1)), TableColumn("sent", width: .fixed(5)), TableColumn("given", width: .fixed(5)),
                      TableColumn("batch", width: .fixed(5), alignment: .right), TableColumn("more", width: .fixed(4)),
                      TableColumn("back", width: .fixed(4)), TableColumn("now", width: .ratio(1))],
            focused: watch.pane == .tokens, theme: theme,
            emptyMessage: watch.focusedClient == nil ? "(no client)" : "(no fetch of changes yet)"
        ).render(into: &buffer, area: inner, rows: rows, state: table)
    }

    private func drawRequests(_ watch: ServerWatchState, traffic: [ClientTraffic], into buffer: inout CellBuffer, area: Rect) {
        let inner = panel(.requests, "Requests and pushes", watch: watch, into: &buffer, area: area)
        let rows = ClosureRowProvider(count: traffic.count) { index in
            let line = traffic[index]
            return TableRow(
                [line.what, line.status.map(String.init) ?? "", line.errorCode ?? "", line.note ?? ""],
                style: line.status.map { $0 != 200 } == true ? theme.error : (line.note == "no fetch after" ? theme.warning : nil))
        }
        var table = watch.requestTable
        if table.selection == nil { table.offset = max(0, rows.rowCount - max(1, inner.height - 1)) }
        Table(
            columns: [TableColumn("request or push", width: .ratio(3)), TableColumn("st", width: .fixed(3)), TableColumn("error", width: .ratio(2)),
                      TableColumn("note", width: .fixed(14))],
            focused: watch.pane == .requests, theme: theme, emptyMessage: watch.focusedClient == nil ? "(no client)" : "(nothing yet)"
        ).render(into: &buffer, area: inner, rows: rows, state: table)
    }

    private func drawDiagnoses(_ watch: ServerWatchState, into buffer: inout CellBuffer, area: Rect, layout: ServerWatchLayout) {
        let inner = panel(.diagnostics, "Diagnostics (sync doctor)", watch: watch, into: &buffer, area: area)
        guard !inner.isEmpty else { return }
        if watch.diagnoses.isEmpty {
            buffer.write("No client mistakes found.", x: inner.x, y: inner.y, style: theme.muted, clip: inner)
            return
        }
        let shown = layout.visibleDiagnoses
        let first = watch.diagnosisTable.visibleOffset(rowCount: watch.diagnoses.count, visibleRows: shown)
        var y = inner.y
        for index in first..<min(watch.diagnoses.count, first + shown) {
            let diagnosis = watch.diagnoses[index]
            let selected = index == watch.diagnosisTable.selection
            let base = selected ? (watch.pane == .diagnostics ? theme.selection : theme.inactiveSelection) : theme.normal
            let mark = diagnosis.severity == .error ? theme.error : theme.warning
            let evidence = diagnosis.evidence.prefix(3).map(\.what).joined(separator: ", ") + (diagnosis.evidence.count > 3 ? ", …" : "")
            let lines: [(String, Style)] = [
                ("\(diagnosis.severity.rawValue) \(diagnosis.code.rawValue) · \(diagnosis.client)", selected ? base : mark.adding(.bold)),
                ("  \(diagnosis.summary)", base),
                ("  lesson \(diagnosis.lesson) · evidence: \(evidence)", selected ? base : theme.muted),
            ]
            for (text, style) in lines where y < inner.maxY {
                let row = Rect(x: inner.x, y: y, width: inner.width, height: 1)
                buffer.fill(row, style: base)
                // A line cut at the pane's edge ends with "…": Enter shows the whole diagnosis.
                buffer.write(TextWidth.truncate(text, to: inner.width), x: inner.x, y: y, style: style, clip: row)
                y += 1
            }
        }
    }

    // MARK: Detail

    private func detailTitle(_ detail: WatchDetail) -> String {
        switch detail {
        case .event: "Request and answer · Esc closes"
        case .diagnosis: "Diagnosis · Esc closes"
        case .help: "Keys · Esc closes"
        }
    }

    func detailLines(_ detail: WatchDetail, watch: ServerWatchState, labels: TokenLabels) -> [String] {
        switch detail {
        case .help:
            return ServerWatchKeys.help.map { "\(TextWidth.pad($0.key, to: 24))\($0.does)" }
        case .diagnosis(let index):
            guard watch.diagnoses.indices.contains(index) else { return ["(this diagnosis is gone)"] }
            let diagnosis = watch.diagnoses[index]
            return ["\(diagnosis.severity.rawValue) \(diagnosis.code.rawValue)", "client: \(diagnosis.client) (user \(diagnosis.user))", "",
                    diagnosis.summary, "", "evidence:"]
                + diagnosis.evidence.map { "  #\($0.seq) \($0.what)" }
                + ["", "lesson: syncscope lesson \(diagnosis.lesson)"]
        case .event(let seq, let node):
            guard let event = watch.events.last(where: { $0.seq == seq && $0.node == node }) else {
                return ["(the inspector no longer keeps this event)"]
            }
            var lines = [
                event.kind == "push"
                    ? "push \(event.action ?? "") \(event.notificationIDs?.joined(separator: ", ") ?? "")"
                    : "\(event.method ?? "") \(event.path ?? event.operation ?? "") → \(event.status.map(String.init) ?? "")\(event.errorCode.map { " \($0)" } ?? "")",
                "client: \(event.clientName ?? event.client ?? "–")  user: \(event.user ?? "–")  latency: \(event.latencyMs.map { "\(Int($0.rounded())) ms" } ?? "–")",
            ]
            if let token = event.tokenIn { lines.append("token sent:  \(labels.label(token)) \(token)") }
            if let token = event.tokenOut { lines.append("token given: \(labels.label(token)) \(token)") }
            if let retry = event.retryAfter { lines.append("retryAfter: \(retry) s") }
            if let fault = event.fault { lines.append("fault: \(fault)") }
            lines += ["", "request:"] + json(event.request) + ["", "answer:"] + json(event.answer)
            return lines
        }
    }

    private func json(_ value: JSONValue?) -> [String] {
        guard let value else { return ["  (no JSON body kept)"] }
        let text = (try? WireJSON.string(value, prettyPrinted: true)) ?? value.description
        return text.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }
    }

    /// Where the detail overlay goes on a screen of `size`.
    static func detailArea(_ size: Size) -> Rect {
        Rect(x: 2, y: 2, width: max(0, size.width - 4), height: max(0, size.height - 4))
    }

    /// The detail's lines as they show `width` columns wide: a line that fits
    /// keeps its indentation (a JSON body's); a longer one wraps.
    static func wrapped(_ lines: [String], width: Int) -> [String] {
        lines.flatMap { TextWidth.of($0) <= width ? [$0] : TextWrap.wrap($0, width: width) }
    }

    /// The first line the detail shows, for a scroll of `scroll` lines: never past the last screenful.
    static func clampedDetailScroll(_ scroll: Int, lines: [String], size: Size) -> Int {
        let inner = Panel.inner(detailArea(size))
        return InspectorView.clampedScroll(scroll, lines: wrapped(lines, width: inner.width).count, rows: inner.height)
    }

    private func drawDetail(_ lines: [String], title: String, scroll: Int, into buffer: inout CellBuffer, size: Size) {
        let inner = Panel(title: title, focused: true, theme: theme).render(into: &buffer, area: Self.detailArea(size))
        guard !inner.isEmpty else { return }
        let wrapped = Self.wrapped(lines, width: inner.width)
        let first = InspectorView.clampedScroll(scroll, lines: wrapped.count, rows: inner.height)
        for (offset, line) in wrapped.dropFirst(first).prefix(inner.height).enumerated() {
            buffer.write(line, x: inner.x, y: inner.y + offset, style: theme.normal, clip: inner)
        }
    }
}
