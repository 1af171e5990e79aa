import SyncCore
import SyncWorlds

/// The event log ("What happened"): which lines the events make under the
/// filters, and how each reads. Pure, and costs what the events kept do
/// (at most ``keptEvents``); only the lines on screen are turned into text.
public enum EventLog {
    /// How many of the world's latest events the snapshot keeps for the log.
    public static let keptEvents = 500

    /// The events a read keeps for the log, oldest first: the latest
    /// ``keptEvents``, or under a filter (a device, a kind) the latest that
    /// many that pass it, however far back among the world's (`all`) they
    /// are. The walk stops once it has them: the filter is applied again
    /// when the lines are made.
    public static func kept(_ all: ArraySlice<WorldEvent>, device: String?, category: EventCategory?) -> [WorldEvent] {
        guard device != nil || category != nil else { return Array(all.suffix(keptEvents)) }
        var kept: [WorldEvent] = []
        kept.reserveCapacity(min(keptEvents, all.count))
        for event in all.reversed() {
            if let device, event.device != device { continue }
            if let category, EventCategory.of(event) != category { continue }
            kept.append(event)
            if kept.count == keptEvents { break }
        }
        kept.reverse()
        return kept
    }

    /// The lines for `events` under the filters of `state`: a device's
    /// consecutive fetch events fold into one line (until the fetch run ends
    /// or the device does something else), so a fetch does not push the
    /// interesting lines away; Enter opens it.
    public static func lines(_ events: [WorldEvent], state: EventLogState) -> [EventLogLine] {
        // First the items (single events and fetches), then the lines.
        var items: [[Int]] = []
        var openFetch: [String: Int] = [:]  // device → index into items
        for (index, event) in events.enumerated() {
            if let device = state.device, event.device != device { continue }
            let category = EventCategory.of(event)
            if let wanted = state.category, category != wanted { continue }
            let device = event.device ?? ""
            guard category == .fetch, event.device != nil else {
                openFetch[device] = nil
                items.append([index])
                continue
            }
            if let open = openFetch[device] {
                items[open].append(index)
            } else {
                openFetch[device] = items.count
                items.append([index])
            }
            if case .sync(.fetchRunFinished) = event.kind { openFetch[device] = nil }
        }
        var lines: [EventLogLine] = []
        lines.reserveCapacity(items.count)
        for members in items {
            guard members.count > 1 else {
                lines.append(EventLogLine(kind: .event, members: members))
                continue
            }
            let expanded = state.expanded.contains(events[members[0]].number)
            lines.append(EventLogLine(kind: .fetch(expanded: expanded), members: members))
            if expanded {
                lines += members.map { EventLogLine(kind: .member, members: [$0]) }
            }
        }
        return lines
    }

    /// The index of the line `state` selects, or `nil` when it follows the newest.
    public static func selectedLine(_ lines: [EventLogLine], events: [WorldEvent], state: EventLogState) -> Int? {
        guard let number = state.selectedEvent, !lines.isEmpty else { return nil }
        // The line of that event, else the first line after it (it was filtered out or dropped).
        if let index = lines.firstIndex(where: { events[$0.first].number >= number }) { return index }
        return lines.count - 1
    }

    /// The line's words (without the time).
    public static func text(_ line: EventLogLine, events: [WorldEvent], devices: [DeviceSummary]) -> String {
        switch line.kind {
        case .event:
            return text(events[line.first], devices: devices)
        case .member:
            return "  " + text(events[line.first], devices: devices)
        case .fetch(let expanded):
            return (expanded ? "▾ " : "▸ ") + fetchSummary(line.members.map { events[$0] })
        }
    }

    /// One event in words: device names, no UUIDs, no epoch milliseconds.
    public static func text(_ event: WorldEvent, devices: [DeviceSummary]) -> String {
        if let fault = InspectorFaults.eventText(event, devices: devices) { return fault }
        let text = event.readableText { id in devices.first { $0.deviceID == id }?.name ?? id }
        // A lesson's narration keeps its file's line breaks: on one line they are spaces.
        guard text.contains("\n") else { return text }
        return TextWrap.unfold(text).replacing("\n\n", with: " ")
    }

    /// "iPhone: fetch run #3 (push): 2 tokens, applied 3 saved, 1 deleted in Notes, done · 6 lines".
    static func fetchSummary(_ events: [WorldEvent]) -> String {
        var run: Int?
        var reason: String?
        var tokens = 0
        var saved = 0
        var deleted = 0
        var zones: [String] = []
        var outcome: String?
        var problems = 0
        for event in events {
            guard case .sync(let sync) = event.kind else { continue }
            switch sync {
            case .fetchRunStarted(let r):
                run = r.id
                reason = r.reason.rawValue
            case .fetchRunFinished(let r):
                run = r.id
                outcome = r.succeeded == false ? "failed" : "done"
            case .fetchScheduled(let why, _):
                reason = reason ?? why.rawValue
            case .tokenReceived:
                tokens += 1
            case .recordsApplied(_, let zone, let s, let d, _):
                saved += s
                deleted += d
                if !zones.contains(zone.zoneName) { zones.append(zone.zoneName) }
            case .fetchCompleted:
                outcome = outcome ?? "done"
            case .fetchInterrupted:
                outcome = "interrupted"
            case .zoneDeleted, .zonePurged, .zoneEncryptedDataReset, .vanishedRecordsRemoved:
                problems += 1
            default:
                break
            }
        }
        var parts: [String] = []
        parts.append(Plural.count(tokens, "token"))
        if saved + deleted > 0 {
            parts.append("applied \(saved) saved, \(deleted) deleted" + (zones.isEmpty ? "" : " in " + zones.joined(separator: ", ")))
        } else {
            parts.append("nothing to apply")
        }
        if problems > 0 { parts.append(Plural.count(problems, "zone change")) }
        let who = events.first?.device.map { "\($0): " } ?? ""
        let name = run.map { "fetch run #\($0)" } ?? "fetch"
        let why = reason.map { " (\($0))" } ?? ""
        return "\(who)\(name)\(why): " + parts.joined(separator: ", ") + ", \(outcome ?? "running…") · \(events.count) lines"
    }

    /// "14:03:07.250" on a wide pane, "03:07.250" on a narrow one.
    static func time(_ time: Milliseconds, wide: Bool) -> String {
        let precise = Format.preciseClock(time)
        return wide ? precise : String(precise.dropFirst(3))
    }

    /// The pane's title: what it shows and which filters are on.
    static func title(_ state: EventLogState, width: Int) -> String {
        var filters: [String] = []
        if let device = state.device { filters.append(device) }
        if let category = state.category { filters.append(category.plural) }
        let what = filters.isEmpty ? "all devices" : "only " + filters.joined(separator: ", ")
        // A narrow pane (beside a lesson) keeps its short name.
        guard width >= 50 else { return "Events" }
        let options = ["What happened (\(what), newest last)", "What happened (\(what))", "What happened"]
        return options.first { TextWidth.of($0) <= width - 6 } ?? "Events"
    }

    // MARK: Keys

    /// Handles a key of the focused event log; `false` when the key is not the log's.
    static func handle(_ key: KeyEvent, state: inout InspectorState) -> Bool {
        let events = state.snapshot.events
        let lines = Self.lines(events, state: state.eventLog)
        let visible = max(1, state.layout.visibleRows(of: .events))
        switch key {
        case .character("j"), .down, .character("k"), .up, .pageUp, .pageDown, .character("g"), .home:
            var table = tableState(lines: lines, events: events, state: state.eventLog, visibleRows: visible)
            if table.selection == nil, !lines.isEmpty {
                // Leaving the newest line: select it first.
                table = TableState(selection: lines.count - 1, offset: max(0, lines.count - visible))
            }
            let normalized: KeyEvent = switch key {
            case .character("j"): .down
            case .character("k"): .up
            case .character("g"): .home
            default: key
            }
            let wasLast = table.selection == lines.count - 1
            table.handle(normalized, rowCount: lines.count, visibleRows: visible)
            if (normalized == .down || normalized == .pageDown) && wasLast {
                follow(state: &state)
            } else if let selection = table.selection, lines.indices.contains(selection) {
                state.eventLog.selectedEvent = events[lines[selection].first].number
                state.eventLog.offset = table.offset
            }
        case .character("G"), .end:
            follow(state: &state)
        case .enter:
            guard let index = tableState(lines: lines, events: events, state: state.eventLog, visibleRows: visible).selection,
                  lines.indices.contains(index) else {
                InspectorKeys.say("Select a line first (k or ↑); a line with ▸ is a fetch, Enter opens it.", state: &state)
                return true
            }
            // Enter on a fetch (or one of its lines) opens or closes it.
            let line = lines[index]
            let head = line.kind == .member ? lines[...index].last { $0.members.contains(line.first) && $0.members.count > 1 } : line
            guard let head, case .fetch(let expanded) = head.kind else { return true }
            let number = events[head.first].number
            if expanded { state.eventLog.expanded.remove(number) } else { state.eventLog.expanded.insert(number) }
            state.eventLog.selectedEvent = number
            // An opened fetch scrolls up so that its lines show (as many as fit, the fetch's line first).
            let reopened = Self.lines(events, state: state.eventLog)
            if !expanded, let at = selectedLine(reopened, events: events, state: state.eventLog) {
                let first = tableState(lines: reopened, events: events, state: state.eventLog, visibleRows: visible)
                    .visibleOffset(rowCount: reopened.count, visibleRows: visible)
                let wanted = min(at, max(first, at + head.members.count + 1 - visible))
                state.eventLog.offset = wanted
            }
        case .character("K"):
            let all: [EventCategory?] = [nil] + EventCategory.allCases
            let next = all[((all.firstIndex(of: state.eventLog.category) ?? 0) + 1) % all.count]
            state.eventLog.category = next
            follow(state: &state)
            InspectorKeys.say(next.map { "What happened: only \($0.plural) (K: next kind)." } ?? "What happened: every kind of event.", state: &state)
        case .character("V"):
            let all: [String?] = [nil] + state.snapshot.devices.map(\.name)
            let next = all[((all.firstIndex(of: state.eventLog.device) ?? 0) + 1) % all.count]
            state.eventLog.device = next
            follow(state: &state)
            InspectorKeys.say(next.map { "What happened: only \($0)'s events (V: next device)." } ?? "What happened: every device's events.", state: &state)
        default:
            return false
        }
        state.needsRedraw = true
        return true
    }

    static func follow(state: inout InspectorState) {
        state.eventLog.selectedEvent = nil
        state.eventLog.offset = 0
        state.needsRedraw = true
    }

    /// The table state that shows `lines`: the selected line in view, or the newest lines when following.
    static func tableState(lines: [EventLogLine], events: [WorldEvent], state: EventLogState, visibleRows: Int) -> TableState {
        guard let selected = selectedLine(lines, events: events, state: state) else {
            return TableState(selection: nil, offset: max(0, lines.count - visibleRows))
        }
        return TableState(selection: selected, offset: state.offset)
    }

    /// The selected line's text, for `y`.
    static func selectedText(_ state: InspectorState) -> String? {
        let events = state.snapshot.events
        let lines = Self.lines(events, state: state.eventLog)
        guard let index = selectedLine(lines, events: events, state: state.eventLog) ?? (lines.isEmpty ? nil : lines.count - 1) else { return nil }
        let line = lines[index]
        return Format.preciseClock(events[line.first].time) + " " + text(line, events: events, devices: state.snapshot.devices)
            .trimmingLeadingFoldMark
    }
}

extension String {
    /// Without a leading "▸ ", "▾ " or indentation.
    var trimmingLeadingFoldMark: String {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "▸" || first == "▾" { text = text.dropFirst() }
        return String(text)
    }
}
