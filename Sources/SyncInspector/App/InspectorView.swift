import SyncCore
import SyncWorlds

/// Draws an ``InspectorState`` into a ``CellBuffer``. Pure: the same state and
/// size give the same cells. Tables ask only for the rows they show, so a
/// zone of 100,000 records costs what a zone of 20 does.
public struct InspectorView: Sendable {
    public var theme: Theme

    public init(theme: Theme = .monochrome) {
        self.theme = theme
    }

    public func render(_ state: InspectorState, size: Size) -> CellBuffer {
        if state.watch.isOn { return ServerWatchView(theme: theme).render(state, size: size) }
        // The presenter layout is made for large fonts: it draws on smaller screens.
        let presenting = state.snapshot.lesson != nil && state.lessonMode.presenting
        guard size.fits(presenting ? Self.presenterMinimumSize : TooSmallScreen.minimumSize) else {
            return TooSmallScreen.render(size: size, minimum: presenting ? Self.presenterMinimumSize : TooSmallScreen.minimumSize, theme: theme)
        }
        var buffer = CellBuffer(size: size, style: theme.normal)
        let layout = state.layout(for: size)
        drawHeader(state, into: &buffer, area: layout.header)
        if !layout.zones.isEmpty { drawZones(state, into: &buffer, area: layout.zones) }
        if layout.records.isEmpty {
        } else if state.pane == .tokens && state.overlay == nil {
            drawRewind(state, into: &buffer, area: layout.records)
        } else {
            drawRecords(state, into: &buffer, area: layout.records)
        }
        if !layout.tokens.isEmpty { drawTokens(state, into: &buffer, area: layout.tokens, layout: layout) }
        if !layout.notifications.isEmpty { drawNotifications(state, into: &buffer, area: layout.notifications, layout: layout) }
        if let events = layout.events {
            // Beside a lesson's narration the log is narrow: its lines wrap rather than being cut.
            if layout.lesson != nil, !state.isFocused(.events), events.width < 60 {
                drawWrappedEvents(state, into: &buffer, area: events)
            } else {
                drawEvents(state, into: &buffer, area: events, layout: layout)
            }
        }
        if let lessonArea = layout.lesson, let lesson = state.snapshot.lesson {
            drawLesson(lesson, state: state, into: &buffer, area: lessonArea)
            if let codeArea = layout.code, let code = lesson.code { drawCode(code, into: &buffer, area: codeArea) }
            drawLessonHighlights(state, into: &buffer, layout: layout)
        }
        drawMessage(state, into: &buffer, area: layout.message)
        drawStatus(state, into: &buffer, area: layout.status)
        drawKeys(state, into: &buffer, area: layout.keys)
        switch state.overlay {
        case .help?: drawHelp(lesson: state.snapshot.lesson != nil, into: &buffer)
        case .form(_, let form)?: FormView(theme: theme).render(form, into: &buffer, screen: buffer.bounds)
        case .confirm(_, let question)?: drawConfirm(question, into: &buffer)
        case .recordDetail?: drawRecordDetail(state, into: &buffer)
        case .faults?: drawFaults(state, into: &buffer)
        case nil: if state.snapshot.lesson != nil { drawLessonOverlays(state, into: &buffer) }
        }
        return buffer
    }

    // MARK: Header and footer lines

    private func drawHeader(_ state: InspectorState, into buffer: inout CellBuffer, area: Rect) {
        buffer.fill(area, style: theme.statusLine)
        var x = buffer.write(" SyncScope ", x: area.x, y: area.y, style: theme.statusLine.adding(.bold), clip: area)
        for (index, device) in state.snapshot.devices.enumerated() {
            x = buffer.write("│", x: x, y: area.y, style: theme.statusLine, clip: area)
            let offline = device.isOnline ? "" : " offline"
            let text = " \(index + 1) \(device.label)\(offline) "
            let focused = index == state.focusedDevice
            var style = focused ? theme.focusedTitle : theme.statusLine
            if !device.isOnline && !focused { style = theme.statusLine.adding(.dim) }
            x = buffer.write(text, x: x, y: area.y, style: style, clip: area)
        }
        if x < area.maxX - 1 {
            buffer.write("│", x: x, y: area.y, style: theme.statusLine, clip: area)
        }
    }

    private func drawMessage(_ state: InspectorState, into buffer: inout CellBuffer, area: Rect) {
        guard !area.isEmpty else { return }
        buffer.fill(area, style: theme.normal)
        if state.isEditingFilter {
            let text = "Filter records: \(state.filter)"
            let end = buffer.write(text, x: area.x + 1, y: area.y, style: theme.normal, clip: area)
            if end < area.maxX { buffer.put(Cell(" ", style: theme.cursor), x: end, y: area.y) }
            buffer.write("   Enter keeps · Esc clears", x: end + 1, y: area.y, style: theme.muted, clip: area)
            return
        }
        guard let message = state.message else {
            buffer.write(" Press ? for every key. Tab moves between panes; d switches device.", x: area.x, y: area.y, style: theme.muted, clip: area)
            return
        }
        let (symbol, style): (String, Style) = switch message.kind {
        case .info: ("·", theme.normal)
        case .success: ("✓", theme.success)
        case .warning: ("!", theme.warning)
        case .error: ("✗", theme.error)
        }
        let lines = TextWrap.wrap("\(symbol) \(message.text)", width: max(1, area.width - 2))
        for (index, line) in lines.prefix(area.height).enumerated() {
            let text = index == area.height - 1 && lines.count > area.height ? TextWidth.truncate(line + " …", to: area.width - 2) : line
            buffer.write(text, x: area.x + 1, y: area.y + index, style: style, clip: area)
        }
    }

    private func drawStatus(_ state: InspectorState, into buffer: inout CellBuffer, area: Rect) {
        guard !area.isEmpty else { return }
        let clock = state.clock
        var parts = [clock.isLive
            ? "● live " + Format.clock(clock.now)
            : (clock.isPaused ? "⏸ PAUSED " : "▶ ") + Format.clock(clock.now) + " " + Format.speed(clock.speed)]
        if let device = state.device {
            parts.append("\(device.name) " + (device.isOnline ? "online" : "OFFLINE"))
            parts.append(device.autoFetchOnPush ? "auto-fetch" : "no auto-fetch")
            if device.pendingChanges > 0 { parts.append("\(device.pendingChanges) to send") }
        }
        if let writer = state.snapshot.writer {
            parts.append("writer " + (writer.isRunning ? Format.seconds(writer.interval) : "off"))
        }
        if !state.snapshot.faultRules.isEmpty { parts.insert("⚠ FAULTS \(state.snapshot.faultRules.count)", at: 1) }
        StatusLine(left: " " + parts.joined(separator: " · "), right: "", style: theme.statusLine)
            .render(into: &buffer, area: area)
    }

    // MARK: Zones

    private func drawZones(_ state: InspectorState, into buffer: inout CellBuffer, area: Rect) {
        let user = state.device?.user ?? ""
        let title = "Zones seen by \(state.device?.label ?? "—")"
        let inner = Panel(title: title, focused: state.isFocused(.zones), theme: theme).render(into: &buffer, area: area)
        guard !inner.isEmpty else { return }
        let footer = inner.height >= 8 ? 1 : 0  // as InspectorLayout.footerLines(of: .zones)
        let tableArea = inner.inset(bottom: footer)
        let wide = inner.width >= 60
        let items = state.snapshot.zones
        // Tokens show the change they stand for next to their short form
        // ("#41 k3Jd9x0"), so two tokens of different text can be compared.
        let positions = items.contains { $0.entry?.serverThrough != nil || $0.entry?.deviceThrough != nil }
        let stateWidth = wide ? 24 : 9
        // The zone's name keeps room for "Notes@alice"; the token columns get the rest.
        let tokenWidth = positions ? min(12, max(7, (inner.width - (11 + 4 + stateWidth + 4)) / 2)) : 7
        let specs = [
            ColumnSpec(title: "zone", width: 6, flexible: true),
            ColumnSpec(title: "recs", width: 4, alignment: .right),
            ColumnSpec(title: "server", width: tokenWidth),
            ColumnSpec(title: "device", width: tokenWidth),
            ColumnSpec(title: "state", width: stateWidth),
        ]
        let (kept, columns) = ColumnSpec.fit(specs, width: inner.width)
        let rows = ClosureRowProvider(count: items.count) { index in
            switch items[index] {
            case .header, .share:
                return TableRow([])
            case .zone(let zone):
                let cells = [
                    (wide ? "  " : "") + zone.displayName(for: user),
                    zone.recordCount.map(Format.count) ?? "—",
                    Self.tokenCell(zone.serverToken, through: zone.serverThrough, width: tokenWidth),
                    Self.tokenCell(zone.deviceToken, through: zone.deviceThrough, width: tokenWidth),
                    wide ? zone.state.long : zone.state.short,
                ]
                return TableRow(kept.map { cells[$0] }, style: style(for: zone.state))
            }
        }
        let table = Table(columns: columns, focused: state.isFocused(.zones), theme: theme, emptyMessage: "(no zones)")
        table.render(into: &buffer, area: tableArea, rows: rows, state: state.zoneTable)
        drawScrollPosition(
            state.zoneTable, rowCount: items.count, visibleRows: table.visibleRows(in: tableArea), noun: "row",
            area: area, focused: state.isFocused(.zones), into: &buffer)
        if footer > 0, let zone = state.zone {
            // How the selected zone's two tokens compare, in words.
            let text = zone.tokenComparison(width: inner.width)
            buffer.write(text, x: inner.x, y: inner.maxY - 1, style: theme.muted, clip: inner)
        }
        // Database headings span the whole row.
        let visible = table.visibleRows(in: tableArea)
        let first = state.zoneTable.visibleOffset(rowCount: items.count, visibleRows: visible)
        for line in 0..<max(0, min(visible, items.count - first)) {
            let y = inner.y + 1 + line
            let row = Rect(x: inner.x, y: y, width: inner.width, height: 1)
            switch items[first + line] {
            case .header(let scope):
                buffer.fill(row, style: theme.normal)
                buffer.write("\(scope.rawValue) database", x: inner.x, y: y, style: theme.title, clip: row)
            case .share(let share):
                // A share line spans the row too (ZoneShareLine).
                share.draw(into: &buffer, row: row, theme: theme)
            case .zone:
                continue
            }
        }
    }

    /// "#41 k3Jd9x0": the change a token stands for, then as much of its
    /// short form as fits `width` (the position always shows whole); "—" for none.
    static func tokenCell(_ token: ServerChangeToken?, through: Int64?, width: Int = 12) -> String {
        guard let token else { return "—" }
        guard let through else { return token.shortForm }
        let position = "#\(through)"
        let room = width - position.count - 1
        return room >= 3 ? "\(position) \(token.shortForm.prefix(room))" : position
    }

    private func style(for state: ZoneSyncState) -> Style? {
        switch state {
        case .inSync, .noChangeFetching: nil
        case .behind, .notFetched, .notSent: theme.warning
        case .deleted, .purged, .reset, .tokenExpired, .tokenRefused: theme.error
        }
    }

    // MARK: Records

    private func drawRecords(_ state: InspectorState, into buffer: inout CellBuffer, area: Rect) {
        let records = state.snapshot.records
        let zoneName = state.zone.map { $0.displayName(for: state.device?.user ?? "") } ?? "no zone selected"
        let deviceName = state.device?.name ?? "device"
        let devices = state.snapshot.devices
        let side = switch state.recordsMode {
        case .both: "server | \(deviceName)"
        case .server: "server"
        case .device: deviceName
        }
        let room = area.width - 6
        let title = [
            "Records · \(zoneName) · \(side)", "Records: \(zoneName) · \(side.replacing(" | ", with: "|"))",
            "\(zoneName) · \(side.replacing(" | ", with: "|"))",
        ].first { TextWidth.of($0) <= room } ?? "\(zoneName) · \(side)"
        let inner = Panel(title: title, focused: state.isFocused(.records), theme: theme).render(into: &buffer, area: area)
        guard !inner.isEmpty else { return }
        let footer = inner.height >= 6 ? 1 : 0
        let tableArea = inner.inset(bottom: footer)

        let specs: [ColumnSpec]
        let cells: (RecordRow) -> [String]
        let production = RecordSchemaLines.deployedProduction(state.world.reading.schemas)
        func type(_ row: RecordRow, _ record: Record?) -> String {
            guard let production, let record, production.refusal(recordType: record.recordType, fields: record.fields) != nil else { return row.type }
            return row.type + " ✗prod"
        }
        switch state.recordsMode {
        case .both:
            specs = [
                ColumnSpec(title: "", width: 2),
                ColumnSpec(title: "name", width: 10, flexible: true, weight: 2),
                ColumnSpec(title: "srv", width: 4),
                ColumnSpec(title: "dev", width: 4),
                ColumnSpec(title: "title", width: 8, priority: 1, flexible: true),
                ColumnSpec(title: "modified by", width: 13, priority: 2),
                ColumnSpec(title: "type", width: 8, priority: 3),
            ]
            cells = { row in
                [row.marker.symbol + (row.hasPendingChange ? "↑" : ""), row.name,
                 row.server?.recordChangeTag ?? "—", row.device?.recordChangeTag ?? "—",
                 RecordRow.summary(of: row.server ?? row.device), RecordRow.modifiedBy(row.server ?? row.device, devices: devices), type(row, row.server ?? row.device)]
            }
        case .server:
            specs = [
                ColumnSpec(title: "name", width: 10, flexible: true, weight: 2),
                ColumnSpec(title: "tag", width: 4),
                ColumnSpec(title: "title", width: 8, priority: 1, flexible: true),
                ColumnSpec(title: "modified by", width: 13, priority: 2),
                ColumnSpec(title: "type", width: 8, priority: 3),
            ]
            cells = { row in
                [row.name, row.server?.recordChangeTag ?? "—", RecordRow.summary(of: row.server),
                 RecordRow.modifiedBy(row.server, devices: devices), type(row, row.server)]
            }
        case .device:
            specs = [
                ColumnSpec(title: "", width: 1),
                ColumnSpec(title: "name", width: 10, flexible: true, weight: 2),
                ColumnSpec(title: "tag", width: 4),
                ColumnSpec(title: "title", width: 8, priority: 1, flexible: true),
                ColumnSpec(title: "modified by", width: 13, priority: 2),
                ColumnSpec(title: "type", width: 8, priority: 3),
            ]
            cells = { row in
                [row.hasPendingChange ? "↑" : " ", row.name, row.device?.recordChangeTag ?? "unsent",
                 RecordRow.summary(of: row.device), RecordRow.modifiedBy(row.device, devices: devices), type(row, row.device)]
            }
        }
        var (kept, columns) = ColumnSpec.fit(specs, width: tableArea.width)
        // The column the rows are sorted by says so: "name▲", "modified by▼".
        for index in columns.indices where columns[index].title == state.recordSort.column {
            columns[index].title += state.recordSort.indicator
        }
        let theme = self.theme
        let mode = state.recordsMode
        let rows = ClosureRowProvider(count: records.count) { index in
            guard let row = records.row(at: index) else { return TableRow([]) }
            let all = cells(row)
            let style: Style? = switch (mode, row.marker) {
            case (.device, _), (_, .same): nil
            case (_, .new): theme.success
            case (_, .changed): theme.warning
            case (_, .deleted): theme.error
            case (_, .localOnly): theme.muted
            }
            return TableRow(kept.map { all[$0] }, style: style)
        }
        let empty = state.zone == nil ? "Select a zone on the left (Enter)." : (state.filter.isEmpty ? "(no records)" : "(no record matches /\(state.filter))")
        let table = Table(columns: columns, focused: state.isFocused(.records), theme: theme, emptyMessage: empty)
        table.render(into: &buffer, area: tableArea, rows: rows, state: state.recordTable)
        drawScrollPosition(
            state.recordTable, rowCount: records.count, visibleRows: table.visibleRows(in: tableArea), noun: "record",
            area: area, focused: state.isFocused(.records), into: &buffer)
        if footer > 0 {
            let legend: String
            if !state.filter.isEmpty {
                legend = "/\(state.filter): \(records.count) of \(records.rows.count) · Esc clears"
            } else if state.recordsMode == .device {
                legend = "↑ not sent yet · v: server | device | both"
            } else {
                let (new, changed, deleted) = (records.counts[.new, default: 0], records.counts[.changed, default: 0], records.counts[.deleted, default: 0])
                legend = [
                    "+\(new) new  ~\(changed) changed  −\(deleted) deleted  ↑\(records.unsent) unsent",
                    "+\(new) new ~\(changed) changed −\(deleted) deleted ↑\(records.unsent) unsent",
                    "+\(new) new ~\(changed) chg −\(deleted) del ↑\(records.unsent) unsent",
                ].first { TextWidth.of($0) <= inner.width } ?? "+\(new) ~\(changed) −\(deleted) ↑\(records.unsent)"
            }
            buffer.write(TextWidth.truncate(legend, to: inner.width), x: inner.x, y: inner.maxY - 1, style: theme.muted, clip: inner)
        }
    }

    /// Writes where a pane's list is scrolled to on its bottom border, at the
    /// right: " 9–16 of 107 " (every scrolling pane does, the same way).
    func drawScrollPosition(
        _ table: TableState, rowCount: Int, visibleRows: Int, noun: String, area: Rect, focused: Bool,
        into buffer: inout CellBuffer
    ) {
        guard let position = Self.scrollPosition(table, rowCount: rowCount, visibleRows: visibleRows, noun: noun) else { return }
        let text = " \(position) "
        let width = TextWidth.of(text)
        guard width + 4 <= area.width, area.height >= 2 else { return }
        buffer.write(text, x: area.maxX - 2 - width, y: area.maxY - 1, style: focused ? theme.focusedBorder : theme.border, clip: area)
    }

    /// "9–16 of 107" when the rows do not all fit, "3 records" when they
    /// do, nothing without rows.
    static func scrollPosition(_ table: TableState, rowCount: Int, visibleRows: Int, noun: String) -> String? {
        guard rowCount > 0 else { return nil }
        guard rowCount > visibleRows, visibleRows > 0 else { return Plural.count(rowCount, noun) }
        let first = table.visibleOffset(rowCount: rowCount, visibleRows: visibleRows)
        return "\(first + 1)–\(min(rowCount, first + visibleRows)) of \(rowCount)"
    }

    // MARK: Rewind

    private func drawRewind(_ state: InspectorState, into buffer: inout CellBuffer, area: Rect) {
        guard let rewind = state.snapshot.rewind else {
            let inner = Panel(title: "Rewind", focused: false, theme: theme).render(into: &buffer, area: area)
            Paragraph("This device has received no token yet. Press f to fetch.", style: theme.muted).render(into: &buffer, area: inner)
            return
        }
        let receipt = rewind.receipt
        let inner = Panel(title: "Rewind to token …\(receipt.token.shortForm)", focused: false, theme: theme)
            .render(into: &buffer, area: area)
        guard !inner.isEmpty else { return }
        let place = receipt.zoneID.map { "zone \($0.zoneName)" } ?? "the \(receipt.scope.rawValue) database"
        // What a fetch from the token returns now comes first; the context fills what room is left.
        var verdict: [(String, Style)] = []
        if let error = rewind.error {
            let what = error.code == .changeTokenExpired ? "This token has EXPIRED (changeTokenExpired)." : "The server refuses this token now (\(error.code.rawValue))."
            verdict.append((what, theme.error))
            verdict.append((error.reason, theme.normal))
        } else if rewind.changes.isEmpty {
            verdict.append(("A fetch of \(place) from it now returns nothing: nothing changed since.", theme.success))
        } else {
            let count = "\(rewind.changes.count)\(rewind.moreComing ? "+" : "") change\(rewind.changes.count == 1 && !rewind.moreComing ? "" : "s")"
            verdict.append(("A fetch of \(place) from it now returns \(count):", theme.title))
        }
        var changes: [(String, Style)] = rewind.changes.map { change in
            switch change {
            case .changed(let name, let type, let isNew): ("\(isNew ? "+" : "~") \(name) (\(type)) \(isNew ? "new" : "changed")", isNew ? theme.success : theme.warning)
            case .deleted(let name, let type): ("− \(name) (\(type.isEmpty ? "record" : type)) deleted", theme.error)
            case .zoneChanged(let zone): ("~ zone \(zone.zoneName)@\(zone.ownerName) changed", theme.warning)
            case .zoneRemoved(let zone, let reason): ("− zone \(zone.zoneName)@\(zone.ownerName) \(reason.rawValue)", theme.error)
            }
        }
        if rewind.moreComing { changes.append(("… and more (moreComing=true)", theme.muted)) }
        let context: [(String, Style)] = [
            ("Received \(Format.clock(receipt.time)) from \(receipt.operation), batch \(receipt.batchIndex + 1), \(receipt.changeCount) change\(receipt.changeCount == 1 ? "" : "s"), moreComing=\(receipt.moreComing).", theme.muted),
            ("Server: \(rewind.meaning).", theme.muted),
        ]
        func wrapped(_ items: [(String, Style)]) -> [(String, Style)] {
            items.flatMap { text, style in TextWrap.wrap(text, width: inner.width).map { ($0, style) } }
        }
        var lines = wrapped(verdict)
        let room = inner.height - lines.count
        if changes.count > room {
            let hidden = changes.count - max(0, room - 1)
            lines += changes.prefix(max(0, room - 1))
            lines.append(("… \(hidden) more", theme.muted))
        } else {
            lines += changes
            for line in wrapped(context) where lines.count < inner.height { lines.append(line) }
        }
        for (index, (text, style)) in lines.prefix(inner.height).enumerated() {
            buffer.write(TextWidth.truncate(text, to: inner.width), x: inner.x, y: inner.y + index, style: style, clip: inner)
        }
    }

    // MARK: Tokens

    private func drawTokens(_ state: InspectorState, into buffer: inout CellBuffer, area: Rect, layout: InspectorLayout) {
        let snapshot = state.snapshot
        var title = "Tokens of \(state.device?.name ?? "") · newest first"
        if snapshot.tokenTotal > snapshot.tokens.count { title += " · \(snapshot.tokens.count) of \(snapshot.tokenTotal)" }
        let inner = Panel(title: title, focused: state.isFocused(.tokens), theme: theme).render(into: &buffer, area: area)
        guard !inner.isEmpty else { return }
        let footer = layout.footerLines(of: .tokens)
        let tableArea = inner.inset(bottom: footer)
        let longTime = tableArea.width >= 48
        let specs = [
            ColumnSpec(title: "time", width: longTime ? 8 : 5),
            ColumnSpec(title: "for", width: 10, flexible: true),
            ColumnSpec(title: "op", width: 4, priority: 2),
            ColumnSpec(title: "#", width: 3, alignment: .right, priority: 1),
            ColumnSpec(title: "more", width: 4),
            ColumnSpec(title: "chg", width: 4, alignment: .right),
            ColumnSpec(title: "token", width: 7),
        ]
        let (kept, columns) = ColumnSpec.fit(specs, width: tableArea.width)
        let tokens = snapshot.tokens
        let user = state.device?.user
        let rows = ClosureRowProvider(count: tokens.count) { index in
            let receipt = tokens[tokens.count - 1 - index]
            let place: String
            if let zone = receipt.zoneID {
                place = zone.ownerName == user ? zone.zoneName : "\(zone.zoneName)@\(zone.ownerName)"
            } else {
                place = "db \(receipt.scope.rawValue)"
            }
            let cells = [
                longTime ? Format.clock(receipt.time) : Format.shortClock(receipt.time), place,
                receipt.kind == .database ? "db" : "zone", "#\(receipt.batchIndex + 1)",
                receipt.moreComing ? "more" : "", "\(receipt.changeCount)", receipt.token.shortForm,
            ]
            return TableRow(kept.map { cells[$0] })
        }
        let table = Table(columns: columns, focused: state.isFocused(.tokens), theme: theme, emptyMessage: "(no token yet: press f to fetch)")
        table.render(into: &buffer, area: tableArea, rows: rows, state: state.tokenTable)
        drawScrollPosition(
            state.tokenTable, rowCount: tokens.count, visibleRows: table.visibleRows(in: tableArea), noun: "token",
            area: area, focused: state.isFocused(.tokens), into: &buffer)
        if footer > 0 {
            let hint = state.pane == .tokens ? "The right pane rewinds to the selected token." : "Select a token to rewind to it."
            buffer.write(TextWidth.truncate(hint, to: inner.width), x: inner.x, y: inner.maxY - 1, style: theme.muted, clip: inner)
        }
    }

    // MARK: Notifications

    private func drawNotifications(_ state: InspectorState, into buffer: inout CellBuffer, area: Rect, layout: InspectorLayout) {
        let snapshot = state.snapshot
        var title = "Push to \(state.device?.name ?? "") · newest first"
        if let count = Self.pushCount(received: snapshot.notificationTotal, entries: snapshot.notifications) { title += " · " + count }
        let inner = Panel(title: title, focused: state.isFocused(.notifications), theme: theme).render(into: &buffer, area: area)
        guard !inner.isEmpty else { return }
        let footer = layout.footerLines(of: .notifications)
        let tableArea = inner.inset(bottom: footer)
        let longTime = tableArea.width >= 60
        let entries = snapshot.notifications
        let specs = [
            ColumnSpec(title: "time", width: longTime ? 8 : 5),
            ColumnSpec(title: "type", width: 5),
            ColumnSpec(title: "about", width: 8, priority: 1, flexible: true),
            ColumnSpec(title: "×", width: 4, alignment: .right),
            ColumnSpec(title: "fetch", width: entries.contains { $0.fault != nil } ? 9 : 8),
            ColumnSpec(title: "latency", width: 7, alignment: .right, priority: 2),
            ColumnSpec(title: "subscription", width: 15, priority: 3),
            ColumnSpec(title: "reason", width: 8, priority: 4),
            ColumnSpec(title: "pruned", width: 6, priority: 5),
        ]
        let (kept, columns) = ColumnSpec.fit(specs, width: tableArea.width)
        let autoFetch = state.device?.autoFetchOnPush ?? true
        let rows = ClosureRowProvider(count: entries.count) { index in
            let cells = Self.notificationCells(entries[index], longTime: longTime, autoFetch: autoFetch)
            let style = entries[index].fault != nil ? theme.warning : entries[index].index == nil ? theme.muted : nil
            return TableRow(kept.map { cells[$0] }, style: style)
        }
        let table = Table(columns: columns, focused: state.isFocused(.notifications), theme: theme, emptyMessage: "(no notification yet)")
        table.render(into: &buffer, area: tableArea, rows: rows, state: state.notificationTable)
        drawScrollPosition(
            state.notificationTable, rowCount: entries.count, visibleRows: table.visibleRows(in: tableArea), noun: "push",
            area: area, focused: state.isFocused(.notifications), into: &buffer)
        if footer > 0 {
            let detail: String
            if let selected = state.notificationTable.selection, entries.indices.contains(selected) {
                detail = Self.notificationDetail(entries[selected], autoFetch: autoFetch)
            } else {
                detail = "A push says only \"something changed\": the device then fetches."
            }
            buffer.write(TextWidth.truncate(detail, to: inner.width), x: inner.x, y: inner.maxY - 1, style: theme.muted, clip: inner)
        }
    }

    /// The count in the push pane's title: what the device received, and
    /// apart from it what is still on its way (the list shows both, and its
    /// footer counts both: "5 received, 1 on the way" beside "6 pushes").
    static func pushCount(received: Int, entries: [NotificationEntry]) -> String? {
        let onTheWay = entries.count { $0.index == nil }
        if onTheWay > 0 { return "\(received) received, \(onTheWay) on the way" }
        return received > 0 ? "\(received)" : nil
    }

    static func notificationCells(_ entry: NotificationEntry, longTime: Bool, autoFetch: Bool) -> [String] {
        let n = entry.notification
        let type = switch n.notificationType {
        case .database: "db"
        case .recordZone: "zone"
        case .query: "query"
        }
        let about: String = switch n {
        case .database(let d): d.databaseScope.rawValue
        case .recordZone(let z): z.recordZoneID.zoneName
        case .query(let q): q.recordID.recordName
        }
        let reason: String = switch n {
        case .query(let q): q.queryNotificationReason.rawValue.replacingPrefix("record", with: "").lowercased()
        default: "—"
        }
        let time: String
        let latency: String
        switch entry.status {
        case .delivered(let at, let lat):
            time = longTime ? Format.clock(at) : Format.shortClock(at)
            latency = Format.duration(lat)
        case .coalescing, .inTransit, .heldWhileOffline:
            time = "…"
            latency = ""
        case .dropped(let at):
            time = longTime ? Format.clock(at) : Format.shortClock(at)
            latency = ""
        }
        return [
            time, type, about, n.coalescedCount > 1 ? "\(n.coalescedCount)→1" : "1",
            fetchText(entry, autoFetch: autoFetch), latency, n.subscriptionID, reason, n.isPruned ? "pruned" : "",
        ]
    }

    static func fetchText(_ entry: NotificationEntry, autoFetch: Bool) -> String {
        // An injected push fault says more than the fetch (which the detail line still gives).
        if let fault = entry.fault { return InspectorFaults.pushMark(fault) }
        switch entry.status {
        case .coalescing: return "coalesce"
        case .inTransit: return "en route"
        case .heldWhileOffline: return "held"
        case .dropped: return "dropped"
        case .delivered: break
        }
        guard let run = entry.fetch else { return autoFetch ? "—" : "auto off" }
        switch run.succeeded {
        case nil: return "#\(run.id) …"
        case false?: return "#\(run.id) fail"
        case true?: return "#\(run.id) +\(run.changesApplied)"
        }
    }

    static func notificationDetail(_ entry: NotificationEntry, autoFetch: Bool) -> String {
        let n = entry.notification
        var parts = ["\(n.subscriptionID)"]
        if case .query(let q) = n { parts.append("\(q.queryNotificationReason.rawValue) \(q.recordID.recordName)") }
        if let zone = n.zoneID { parts.append("zone \(zone.zoneName)") }
        if n.coalescedCount > 1 { parts.append("\(n.coalescedCount) coalesced → 1") }
        if n.isPruned { parts.append("pruned") }
        switch entry.status {
        case .delivered(_, let latency): parts.append("latency \(Format.duration(latency))")
        case .coalescing(let until): parts.append("coalescing until \(Format.clock(until))")
        case .inTransit(let at): parts.append("arrives \(Format.clock(at))")
        case .heldWhileOffline: parts.append("held while offline")
        case .dropped(let at): parts.append("dropped at \(Format.clock(at)) (injected fault): never arrives")
        }
        if let fault = entry.fault, fault != "dropped" { parts.append("injected fault: \(fault)") }
        if let run = entry.fetch {
            let outcome = run.succeeded.map { $0 ? "applied \(run.changesApplied)" : "failed" } ?? "running"
            parts.append("fetch #\(run.id) \(outcome)")
        } else if case .delivered = entry.status {
            parts.append(autoFetch ? "no fetch" : "auto-fetch off: no fetch")
        }
        return parts.joined(separator: " · ")
    }

    // MARK: Events

    private func drawEvents(_ state: InspectorState, into buffer: inout CellBuffer, area: Rect, layout: InspectorLayout) {
        let focused = state.isFocused(.events)
        let title = EventLog.title(state.eventLog, width: area.width)
        let inner = Panel(title: title, focused: focused, theme: theme).render(into: &buffer, area: area)
        guard !inner.isEmpty else { return }
        let events = state.snapshot.events
        let lines = EventLog.lines(events, state: state.eventLog)
        let footer = layout.footerLines(of: .events)
        let tableArea = inner.inset(bottom: footer)
        // A narrow pane (beside a lesson) leaves the time out: the words matter more.
        let showsTime = inner.width >= 40
        let wideTime = inner.width >= 100
        var columns = [TableColumn("what happened", width: .fill)]
        if showsTime { columns.insert(TableColumn("time", width: .fixed(wideTime ? 12 : 9)), at: 0) }
        let devices = state.snapshot.devices
        let theme = self.theme
        let rows = ClosureRowProvider(count: lines.count) { index in
            let line = lines[index]
            let event = events[line.first]
            let style: Style? = switch event.kind {
            case .failed: theme.error
            case .action: nil
            default: InspectorFaults.isFault(event) ? theme.warning : (EventCategory.of(event) == .error ? theme.error : theme.muted)
            }
            let text = EventLog.text(line, events: events, devices: devices)
            let time = line.kind == .member ? "" : EventLog.time(event.time, wide: wideTime)
            return TableRow(showsTime ? [time, text] : [text], style: style)
        }
        let visible = tableArea.height
        let tableState = EventLog.tableState(lines: lines, events: events, state: state.eventLog, visibleRows: visible)
        let empty = state.eventLog.device != nil || state.eventLog.category != nil ? "(nothing of this kind: K and V change the filter)" : "(nothing yet)"
        let table = Table(columns: columns, showsHeader: false, focused: focused, theme: theme, emptyMessage: empty)
        table.render(into: &buffer, area: tableArea, rows: rows, state: tableState)
        drawScrollPosition(tableState, rowCount: lines.count, visibleRows: visible, noun: "line", area: area, focused: focused, into: &buffer)
        if footer > 0 {
            let hint: String
            let filtered = state.eventLog.device != nil || state.eventLog.category != nil
            if state.snapshot.eventCount > events.count && tableState.visibleOffset(rowCount: lines.count, visibleRows: visible) == 0 {
                hint = filtered
                    ? "(earlier events of this kind are in the --log file, if one was asked for)"
                    : "(the \(Plural.count(state.snapshot.eventCount - events.count, "earlier event")) are in the --log file, if one was asked for)"
            } else if !focused {
                hint = layout.zoomed == nil ? "E or Tab: scroll, filter, open a fetch ▸" : "Tab: next pane"
            } else if state.eventLog.isFollowing {
                hint = "Following the newest · k scrolls back · Enter opens a fetch ▸ · K kind · V device"
            } else {
                hint = "Scrolled back · G follows the newest · Enter opens a fetch ▸ · K kind · V device"
            }
            buffer.write(TextWidth.truncate(hint, to: inner.width), x: inner.x, y: inner.maxY - 1, style: theme.muted, clip: inner)
        }
    }

    // MARK: Footer: the focused pane's keys

    private func drawKeys(_ state: InspectorState, into buffer: inout CellBuffer, area: Rect) {
        guard !area.isEmpty else { return }
        buffer.fill(area, style: theme.normal)
        var entries: [HelpEntry] = []
        if state.isEditingFilter {
            entries = [HelpEntry("Enter", "keep the filter"), HelpEntry("Esc", "clear it")]
        } else if state.overlay == nil, state.lessonMode.outlineSelection == nil, !state.lessonMode.showsSummary {
            entries = InspectorKeys.paneKeys(state)
        }
        let tail = "? keys  q quit "
        let tailWidth = TextWidth.of(tail)
        var x = area.x + 1
        for entry in entries {
            let width = TextWidth.of(entry.keys) + 1 + TextWidth.of(entry.description)
            guard x + width <= area.maxX - tailWidth - 1 else { break }
            x = buffer.write(entry.keys, x: x, y: area.y, style: theme.helpKey, clip: area)
            x = buffer.write(" " + entry.description + "  ", x: x, y: area.y, style: theme.muted, clip: area)
        }
        var tailX = area.maxX - tailWidth
        for (keys, description) in [("?", " keys  "), ("q", " quit ")] {
            tailX = buffer.write(keys, x: tailX, y: area.y, style: theme.helpKey, clip: area)
            tailX = buffer.write(description, x: tailX, y: area.y, style: theme.muted, clip: area)
        }
    }

    // MARK: Lesson

    // MARK: Overlays

    private func drawHelp(lesson: Bool, into buffer: inout CellBuffer) {
        // The whole screen: 80×24 is just enough for every key.
        buffer.fill(buffer.bounds, style: theme.normal)
        let box = buffer.bounds
        let inner = Panel(title: "Keys", focused: true, theme: theme).render(into: &buffer, area: box)
        buffer.fill(inner, style: theme.normal)
        guard !inner.isEmpty else { return }
        let content = inner.inset(left: 1, right: 1)
        let columnWidth = (content.width - 2) / 2
        let sections = InspectorKeys.help
        // Fill the left column, then the right, keeping sections whole.
        let total = sections.reduce(0) { $0 + $1.entries.count + 2 }
        var column = 0
        var y = content.y
        var used = 0
        for section in sections {
            let height = section.entries.count + 1
            if column == 0 && used > 0 && used + height > (total + 1) / 2 {
                column = 1
                y = content.y
            }
            let x = content.x + column * (columnWidth + 2)
            let area = Rect(x: x, y: content.y, width: columnWidth, height: content.height - 1)
            buffer.write(section.title, x: x, y: y, style: theme.title, clip: area)
            y += 1
            let keysWidth = 9
            for entry in section.entries where y < area.maxY {
                buffer.write(TextWidth.truncate(entry.keys, to: keysWidth), x: x, y: y, style: theme.helpKey, clip: area)
                buffer.write(TextWidth.truncate(entry.description, to: columnWidth - keysWidth - 1), x: x + keysWidth + 1, y: y, style: theme.normal, clip: area)
                y += 1
            }
            y += 1
            used += height + 1
        }
        let footer = lesson
            ? "Lesson: Enter (lesson pane) next · p back · t outline · b start again · m follow/pin. ? or Esc closes."
            : "With Tokens focused, the right pane rewinds to a token. ? or Esc closes."
        buffer.write(TextWidth.truncate(footer, to: content.width), x: content.x, y: content.maxY - 1, style: theme.muted, clip: content)
    }

    private func drawConfirm(_ question: String, into buffer: inout CellBuffer) {
        let width = min(64, buffer.width - 4)
        let lines = TextWrap.wrap(question, width: width - 4)
        let box = buffer.bounds.centered(width: width, height: lines.count + 4)
        let inner = Panel(title: "Are you sure?", focused: true, theme: theme).render(into: &buffer, area: box)
        buffer.fill(inner, style: theme.normal)
        let content = inner.inset(left: 1, right: 1)
        for (index, line) in lines.enumerated() {
            buffer.write(line, x: content.x, y: content.y + index, style: theme.normal, clip: content)
        }
        buffer.write("y yes · n no", x: content.x, y: content.maxY - 1, style: theme.helpKey, clip: content)
    }

    private func drawRecordDetail(_ state: InspectorState, into buffer: inout CellBuffer) {
        guard let row = state.record else { return }
        let boxWidth = min(buffer.width - 4, 90)
        let width = max(1, boxWidth - 4)
        var lines: [(String, Style)] = []
        func add(_ text: String, _ style: Style) {
            lines += TextWrap.wrap(text, width: width).map { ($0, style) }
        }
        let markerStyle: Style = switch row.marker {
        case .same: theme.success
        case .new: theme.success
        case .changed: theme.warning
        case .deleted: theme.error
        case .localOnly: theme.muted
        }
        add("\(row.marker.symbol == " " ? "=" : row.marker.symbol) \(row.marker.explanation)", markerStyle)
        if row.hasPendingChange {
            add("↑ \(state.device?.name ?? "the device") has a change to it waiting to be sent", theme.warning)
        }
        func describe(_ record: Record?, heading: String) {
            lines.append(("", theme.normal))
            guard let record else {
                add("\(heading): none", theme.title)
                return
            }
            var facts = ["tag \(record.recordChangeTag ?? "none (never saved)")"]
            if let modified = record.modified {
                facts.append("modified \(Format.clock(modified.timestamp)) by \(modified.deviceID ?? modified.userRecordName)")
            }
            if let created = record.created {
                facts.append("created \(Format.clock(created.timestamp)) by \(created.deviceID ?? created.userRecordName)")
            }
            add("\(heading): " + facts.joined(separator: ", "), theme.title)
            let nameWidth = min(16, record.fields.map { TextWidth.of($0.name) }.max() ?? 0)
            for field in record.fields {
                lines.append(("  " + TextWidth.pad(field.name, to: nameWidth) + "  " + field.value.displayString + "  (\(field.value.typeName))", theme.normal))
            }
            if record.fields.isEmpty { lines.append(("  (no fields)", theme.muted)) }
        }
        describe(row.server, heading: "Server")
        describe(row.device, heading: "\(state.device?.name ?? "Device")'s copy")
        for line in RecordSchemaLines.lines(for: row.server ?? row.device, schemas: state.world.reading.schemas) {
            lines.append(("", theme.normal))
            switch line {
            case .heading(let text): add(text, theme.title)
            case .field(let text): lines.append((text, theme.normal))
            case .accepted(let text): add(text, theme.success)
            case .refused(let text): add(text, theme.error)
            }
        }

        // As tall as its lines (and the footer), at most the screen.
        let box = buffer.bounds.centered(width: boxWidth, height: min(buffer.height - 2, lines.count + 4))
        let zone = (row.server ?? row.device)?.recordID.zoneID
        let title = "\(row.name) (\(row.type))" + (zone.map { " in \($0.zoneName)@\($0.ownerName)" } ?? "")
        let inner = Panel(title: title, focused: true, theme: theme).render(into: &buffer, area: box)
        buffer.fill(inner, style: theme.normal)
        let content = inner.inset(left: 1, right: 1)
        guard !content.isEmpty else { return }
        var y = content.y
        for (text, style) in lines where y < content.maxY - 2 {
            buffer.write(TextWidth.truncate(text, to: content.width), x: content.x, y: y, style: style, clip: content)
            y += 1
        }
        buffer.write("e edit · x delete · j/k next / previous · Esc close", x: content.x, y: content.maxY - 1, style: theme.muted, clip: content)
    }
}

extension String {
    func replacingPrefix(_ prefix: String, with replacement: String) -> String {
        hasPrefix(prefix) ? replacement + dropFirst(prefix.count) : self
    }
}

