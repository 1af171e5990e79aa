import SyncCore

/// Something a key asks the simulation (or the clock) to do. Device actions
/// name the device they act on.
public enum InspectorCommand: Hashable, Sendable {
    case createZone(String, device: String)
    case deleteZone(RecordZoneID, device: String)
    case purgeZone(RecordZoneID, device: String)
    case encryptedDataReset(device: String)
    case saveRecord(Record, device: String)
    case deleteRecord(RecordID, device: String)
    case fetch(device: String)
    case fetchOneBatch(resultsLimit: Int, device: String)
    case sync(device: String)
    case setAutoFetch(Bool, device: String)
    case setOnline(Bool, device: String)
    case compact(device: String)
    case setWriterRunning(Bool)
    case burst(Int, device: String)
    case setPaused(Bool)
    /// Paused: run the simulation up to its next event.
    case step
    case setSpeed(Double)
    /// Lessons: run the next step.
    case lessonNext
    /// Lessons: build the world again and go back to the first step.
    case lessonRestart
    /// Lessons: build the world again and run this many steps (step back, jump).
    case lessonGoTo(stepsRun: Int)
    /// Repaint the whole terminal (Ctrl-L).
    case redraw
    case quit
    /// Puts a fault rule in force (the faults overlay).
    case addFault(FaultRule)
    /// Stops every fault rule.
    case clearFaults
    /// Puts `text` on the terminal's clipboard (`y`); `what` names it in the message.
    case copy(String, what: String)
}

/// Keys → state changes and commands. Pure: it reads and changes only the
/// state; ``InspectorReducer`` answers the commands or queues them as effects.
public enum InspectorKeys {
    /// The key bindings, for the help page.
    public static let help: [HelpSection] = [
        HelpSection("Move around", [
            HelpEntry("Tab h l", "next pane / left / right"),
            HelpEntry("j k ↓ ↑", "next / previous row"),
            HelpEntry("PgDn g G", "a page / first / last row"),
            HelpEntry("1-9 d D", "device 1-9 / next / prev."),
            HelpEntry("Enter i", "open the zone / a record"),
            HelpEntry("Z", "zoom the pane (Esc: back)"),
            HelpEntry("mouse", "click: focus, select; wheel"),
            HelpEntry("? ^L q", "help / repaint / quit"),
        ]),
        HelpSection("Records", [
            HelpEntry("n e x", "new / edit / delete record"),
            HelpEntry("v", "server | device | both"),
            HelpEntry("/", "filter (Esc clears)"),
            HelpEntry("S", "sort: name, modified, type"),
            HelpEntry("y", "copy name or token (OSC 52)"),
        ]),
        HelpSection("What happened (E: the log)", [
            HelpEntry("Enter", "open / close a fetch ▸"),
            HelpEntry("K V G", "a kind / a device / newest"),
        ]),
        HelpSection("Zones", [
            HelpEntry("z", "create a zone"),
            HelpEntry("X P", "delete / purge (Settings)"),
            HelpEntry("R", "encrypted-data reset"),
        ]),
        HelpSection("Sync (focused device)", [
            HelpEntry("f", "fetch now (every batch)"),
            HelpEntry("F", "fetch one batch"),
            HelpEntry("L", "set resultsLimit for F"),
            HelpEntry("s", "send, then fetch"),
            HelpEntry("a", "auto-fetch on push on/off"),
            HelpEntry("o", "take offline / online"),
            HelpEntry("c", "compact: old tokens expire"),
            HelpEntry("!", "faults: throttle, outage…"),
        ]),
        HelpSection("Clock and writer", [
            HelpEntry("Space", "pause / run the clock"),
            HelpEntry(".", "step to the next event"),
            HelpEntry("+ -", "faster / slower"),
            HelpEntry("w", "start / stop the writer"),
            HelpEntry("W", "write burst on this device"),
        ]),
    ]

    /// Handles one key. Returns the commands to run, in order.
    public static func handle(_ key: KeyEvent, state: inout InspectorState) -> [InspectorCommand] {
        if key == .ctrlC { return [.quit] }
        if key == .control("l") {
            state.needsRedraw = true
            return [.redraw]
        }
        if let commands = LessonMode.handle(key, state: &state) {
            return commands
        }
        if let overlay = state.overlay {
            return handleOverlay(overlay, key: key, state: &state)
        }
        if state.isEditingFilter {
            return handleFilter(key, state: &state)
        }
        return handleMain(key, state: &state)
    }

    // MARK: Main screen

    private static func handleMain(_ key: KeyEvent, state: inout InspectorState) -> [InspectorCommand] {
        let device = state.device?.name
        if case .mouse(let mouse) = key {
            return handleMouse(mouse, state: &state)
        }
        if state.pane == .events, state.isFocused(.events), EventLog.handle(key, state: &state) {
            return []
        }
        switch key {
        case .character("q"):
            return [.quit]
        case .character("?"):
            open(.help, state: &state)
        case .character("!"):
            open(.faults, state: &state)
        case .tab, .backTab:
            let order = state.tabOrder
            let count = order.count
            let current = order.firstIndex(of: state.pane) ?? 0
            focus(order[(current + (key == .tab ? 1 : count - 1)) % count], state: &state)
        case .character("h"), .left:
            focus(.at(column: 0, row: state.pane.gridPosition.row), state: &state)
        case .character("l"), .right:
            focus(.at(column: 1, row: state.pane.gridPosition.row), state: &state)
        case .character("Z"):
            state.zoomed.toggle()
            if !state.zoomed, !state.tabOrder.contains(state.pane) { state.pane = .zones }
            state.needsRedraw = true
        case .character("E"):
            if state.pane == .events {
                // Back to where the log came from.
                state.zoomed = false
                state.pane = .zones
            } else {
                state.pane = .events
                // Beside a lesson the log is narrow: it opens full width.
                state.zoomed = state.snapshot.lesson != nil || state.layout.events == nil
            }
            state.lessonMode.narrativeFocused = false
            state.needsRedraw = true
        case .character("S"):
            state.recordSort = state.recordSort.next
            state.recordTable = TableState()
            state.selectedRecordName = nil
            say("Records sorted \(state.recordSort.phrase) (S: next order).", state: &state)
        case .character("y"):
            return copySelection(state: &state)
        case .character("j"), .down, .character("k"), .up, .pageUp, .pageDown, .home, .end, .character("g"), .character("G"):
            move(key, state: &state)
        case .character(let c) where c.isNumber && c != "0":
            if let n = c.wholeNumberValue { focusDevice(n - 1, state: &state) }
        case .character("d"):
            focusDevice((state.focusedDevice + 1) % max(1, state.snapshot.devices.count), state: &state)
        case .character("D"):
            let count = max(1, state.snapshot.devices.count)
            focusDevice((state.focusedDevice + count - 1) % count, state: &state)
        case .character("i"):
            if state.record != nil {
                state.pane = .records
                open(.recordDetail, state: &state)
            }
        case .enter:
            switch state.pane {
            case .zones: focus(.records, state: &state)
            case .records:
                if state.record != nil { open(.recordDetail, state: &state) }
            case .tokens, .notifications, .events: break
            }
        case .escape:
            if state.zoomed {
                state.zoomed = false
                if !state.tabOrder.contains(state.pane) { state.pane = .zones }
                state.needsRedraw = true
            } else if !state.filter.isEmpty {
                state.filter = ""
                state.recordTable = TableState()
                say("Filter cleared.", state: &state)
            } else if state.message != nil {
                state.message = nil
                state.needsRedraw = true
            }
        case .character("v"):
            let modes = RecordsMode.allCases
            state.recordsMode = modes[((modes.firstIndex(of: state.recordsMode) ?? 0) + 1) % modes.count]
            state.needsRedraw = true
        case .character("/"):
            state.isEditingFilter = true
            state.pane = .records
            state.needsRedraw = true
        case .character("n"):
            guard let zone = writableZone(state: &state) else { break }
            let form = FormState(title: "New record in \(zone.zoneName) on \(device ?? "?")", fields: [
                FormField(label: "name", placeholder: "note-1"),
                FormField(label: "type", text: "Note"),
                FormField(label: "title", placeholder: "Shopping list"),
                FormField(label: "body"),
            ])
            open(.form(.newRecord(zone), form), state: &state)
        case .character("e"):
            guard let record = editableRecord(state: &state) else { break }
            open(.form(.editRecord(record), editForm(for: record, device: device ?? "?")), state: &state)
        case .character("x"):
            guard let row = state.record, let device else {
                say("Select a record first (Records pane).", kind: .warning, state: &state)
                break
            }
            let id = (row.device ?? row.server)?.recordID ?? RecordID(recordName: row.name, zoneID: state.selectedZone?.zoneID ?? .defaultZone(ownerName: ""))
            ask(.deleteRecord(id), "Delete \(row.name) on \(device)? The deletion reaches the others with their next fetch.", state: &state)
        case .character("z"):
            guard device != nil else { break }
            open(.form(.newZone, FormState(title: "New zone of \(state.device?.user ?? "?")", fields: [
                FormField(label: "name", placeholder: "Recipes"),
            ])), state: &state)
        case .character("X"):
            guard let zone = ownZone(for: "delete", state: &state), let device else { break }
            ask(.deleteZone(zone), "Delete zone \(zone.zoneName) from \(device)? Its records go for every device and share.", state: &state)
        case .character("P"):
            guard let zone = ownZone(for: "purge", state: &state), isOnline("Purging a zone", state: &state) else { break }
            ask(.purgeZone(zone), "Purge zone \(zone.zoneName), as if the user deleted the app's data in Settings?", state: &state)
        case .character("R"):
            guard device != nil, isOnline("An encrypted-data reset", state: &state) else { break }
            ask(.encryptedDataReset, "Reset \(state.device?.user ?? "?")'s encrypted data? Every private zone goes; devices upload their copies again.", state: &state)
        case .character("c"):
            guard device != nil, isOnline("Compacting the history", state: &state) else { break }
            ask(.compact, compactQuestion(state), state: &state)
        case .character("f"):
            if let device { return [.fetch(device: device)] }
        case .character("F"):
            if let device { return [.fetchOneBatch(resultsLimit: state.resultsLimit, device: device)] }
        case .character("L"):
            open(.form(.resultsLimit, FormState(title: "resultsLimit for one-batch fetches (F)", fields: [
                FormField(label: "resultsLimit", text: "\(state.resultsLimit)"),
            ])), state: &state)
        case .character("s"):
            if let device { return [.sync(device: device)] }
        case .character("a"):
            if let device, let summary = state.device { return [.setAutoFetch(!summary.autoFetchOnPush, device: device)] }
        case .character("o"):
            if let device, let summary = state.device { return [.setOnline(!summary.isOnline, device: device)] }
        case .character("w"):
            guard let writer = state.snapshot.writer else {
                say("This world has no writer.", kind: .warning, state: &state)
                break
            }
            return [.setWriterRunning(!writer.isRunning)]
        case .character("W"):
            guard let device else { break }
            guard state.snapshot.writer != nil else {
                say("W (a write burst) needs the demo's writer, and this world has none: save records with n instead.", kind: .warning, state: &state)
                break
            }
            return [.burst(state.burstSize, device: device)]
        case .character(" "):
            return [.setPaused(!state.clock.isPaused)]
        case .character("."):
            return [.step]
        case .character("+"), .character("="), .character(">"):
            let faster = ClockStatus.speeds.first { $0 > state.clock.speed } ?? state.clock.speed
            return [.setSpeed(faster)]
        case .character("-"), .character("<"):
            let slower = ClockStatus.speeds.last { $0 < state.clock.speed } ?? state.clock.speed
            return [.setSpeed(slower)]
        case .resize:
            state.needsRedraw = true
        default:
            break
        }
        return []
    }

    // MARK: Overlays

    private static func handleOverlay(_ overlay: InspectorOverlay, key: KeyEvent, state: inout InspectorState) -> [InspectorCommand] {
        switch overlay {
        case .help:
            switch key {
            case .character("?"), .escape, .character("q"), .enter: close(state: &state)
            default: break
            }
            return []
        case .faults:
            return InspectorFaults.handle(key, state: &state)
        case .recordDetail:
            switch key {
            case .escape, .enter, .character("q"), .character("i"): close(state: &state)
            case .character("j"), .down, .character("k"), .up:
                move(key, state: &state)
                if state.record == nil { close(state: &state) }
            case .character("e"), .character("x"):
                close(state: &state)
                return handleMain(key, state: &state)
            default: break
            }
            return []
        case .confirm(let action, _):
            switch key {
            case .character("y"), .character("Y"), .enter:
                close(state: &state)
                guard let device = state.device?.name else { return [] }
                switch action {
                case .deleteRecord(let id): return [.deleteRecord(id, device: device)]
                case .deleteZone(let zone): return [.deleteZone(zone, device: device)]
                case .purgeZone(let zone): return [.purgeZone(zone, device: device)]
                case .encryptedDataReset: return [.encryptedDataReset(device: device)]
                case .compact: return [.compact(device: device)]
                }
            case .character("n"), .character("N"), .escape, .character("q"):
                close(state: &state)
                say("Cancelled.", state: &state)
            default: break
            }
            return []
        case .form(let purpose, var form):
            switch form.handle(key) {
            case .unhandled, .unchanged:
                return []
            case .changed:
                state.overlay = .form(purpose, form)
                state.needsRedraw = true
                return []
            case .cancelled:
                close(state: &state)
                return []
            case .submitted:
                switch submit(purpose, form: form, state: &state) {
                case .success(let commands):
                    close(state: &state)
                    return commands
                case .failure(let problem):
                    form.message = problem.text
                    state.overlay = .form(purpose, form)
                    state.needsRedraw = true
                    return []
                }
            }
        }
    }

    private struct FormProblem: Error {
        var text: String
    }

    private static func submit(_ purpose: FormPurpose, form: FormState, state: inout InspectorState) -> Result<[InspectorCommand], FormProblem> {
        guard let device = state.device?.name else { return .failure(FormProblem(text: "No device is focused.")) }
        switch purpose {
        case .newZone:
            let name = (form.value(of: "name") ?? "").trimmed
            guard !name.isEmpty else { return .failure(FormProblem(text: "Give the zone a name.")) }
            return .success([.createZone(name, device: device)])
        case .resultsLimit:
            let text = (form.value(of: "resultsLimit") ?? "").trimmed
            guard let limit = Int(text), limit > 0 else {
                return .failure(FormProblem(text: "resultsLimit is a whole number of at least 1."))
            }
            state.resultsLimit = limit
            say("One-batch fetches (F) now ask for at most \(limit) change\(limit == 1 ? "" : "s").", state: &state)
            return .success([])
        case .newRecord(let zone):
            let name = (form.value(of: "name") ?? "").trimmed
            guard !name.isEmpty else { return .failure(FormProblem(text: "Give the record a name, e.g. note-1.")) }
            let type = (form.value(of: "type") ?? "").trimmed
            guard !type.isEmpty else { return .failure(FormProblem(text: "Give the record a type, e.g. Note.")) }
            if state.selectedZone?.zoneID == zone, let existing = state.snapshot.records.rows.first(where: { $0.name == name }), existing.device != nil {
                return .failure(FormProblem(text: "\(name) already exists; select it and press e to edit it."))
            }
            var fields = RecordFields()
            for label in ["title", "body"] {
                if let text = form.value(of: label), !text.isEmpty { fields[label] = .string(text) }
            }
            let record = Record(recordID: RecordID(recordName: name, zoneID: zone), recordType: type, fields: fields)
            return .success([.saveRecord(record, device: device)])
        case .editRecord(let original):
            var record = original
            for field in form.fields {
                let text = field.text
                let previous = original[field.label]
                if text.isEmpty {
                    record[field.label] = nil
                    continue
                }
                switch previous {
                case .int64?:
                    guard let value = Int64(text.trimmed) else {
                        return .failure(FormProblem(text: "\(field.label) is a whole number (INT64)."))
                    }
                    record[field.label] = .int64(value)
                case .double?:
                    guard let value = Double(text.trimmed) else {
                        return .failure(FormProblem(text: "\(field.label) is a number (DOUBLE)."))
                    }
                    record[field.label] = .double(value)
                default:
                    record[field.label] = .string(text)
                }
            }
            if record.fields == original.fields {
                return .failure(FormProblem(text: "Nothing changed; Esc closes the form."))
            }
            return .success([.saveRecord(record, device: device)])
        }
    }

    /// A form with one line per field the form can edit (strings and numbers).
    static func editForm(for record: Record, device: String) -> FormState {
        var fields: [FormField] = []
        for field in record.fields {
            switch field.value {
            case .string(let s): fields.append(FormField(label: field.name, text: s))
            case .int64(let i): fields.append(FormField(label: field.name, text: String(i)))
            case .double(let d): fields.append(FormField(label: field.name, text: String(d)))
            default: break
            }
        }
        if fields.isEmpty { fields.append(FormField(label: "title")) }
        return FormState(title: "Edit \(record.recordID.recordName) on \(device)", fields: fields)
    }

    // MARK: Filter

    private static func handleFilter(_ key: KeyEvent, state: inout InspectorState) -> [InspectorCommand] {
        switch key {
        case .enter:
            state.isEditingFilter = false
        case .escape:
            state.isEditingFilter = false
            state.filter = ""
        case .backspace:
            guard !state.filter.isEmpty else { return [] }
            state.filter.removeLast()
        case .control("u"):
            state.filter = ""
        case .character(let c):
            guard TextWidth.of(c) > 0 else { return [] }
            state.filter.append(c)
        default:
            return []
        }
        state.recordTable = TableState()
        state.selectedRecordName = nil
        state.needsRedraw = true
        return []
    }

    // MARK: Helpers

    static func open(_ overlay: InspectorOverlay, state: inout InspectorState) {
        state.overlay = overlay
        state.needsRedraw = true
    }

    static func close(state: inout InspectorState) {
        state.overlay = nil
        state.needsRedraw = true
    }

    private static func ask(_ action: ConfirmAction, _ question: String, state: inout InspectorState) {
        open(.confirm(action, question: question), state: &state)
    }

    static func say(_ text: String, kind: InspectorMessage.Kind = .info, state: inout InspectorState) {
        state.message = InspectorMessage(text, kind: kind)
        state.needsRedraw = true
    }

    private static func focus(_ pane: InspectorPane, state: inout InspectorState) {
        guard pane != state.pane else { return }
        state.pane = pane
        state.needsRedraw = true
    }

    static func focusDevice(_ index: Int, state: inout InspectorState) {
        guard state.snapshot.devices.indices.contains(index), index != state.focusedDevice else { return }
        state.focusedDevice = index
        state.tokenSelection = nil
        state.tokenTable = TableState()
        state.notificationSelection = nil
        state.notificationTable = TableState()
        state.needsRedraw = true
    }

    /// Whether the focused device is online; otherwise says that `action`
    /// needs the server (rather than asking first and refusing after).
    private static func isOnline(_ action: String, state: inout InspectorState) -> Bool {
        guard let device = state.device, !device.isOnline else { return true }
        say("\(device.name) is offline: \(action.prefix(1).lowercased() + action.dropFirst()) happens on the server. Press o to bring it back online first.",
            kind: .warning, state: &state)
        return false
    }

    /// "Compact bob's history? …", naming whose tokens expire, and saying so
    /// when the selected zone is another user's (its tokens do not).
    static func compactQuestion(_ state: InspectorState) -> String {
        let user = state.device?.user ?? "?"
        var question = "Compact \(user)'s history on the server? A token for \(user)'s zones from before their latest change "
            + "expires: a device that is behind (\(user)'s, or one \(user) shares a zone with) gets changeTokenExpired on its next fetch; "
            + "a device in sync keeps its token."
        if let zone = state.zone, zone.zoneID.ownerName != user, zone.scope == .shared {
            let owner = zone.zoneID.ownerName
            question += " \(zone.zoneID.zoneName) is \(owner)'s zone, shared with \(user): its tokens stay valid "
                + "(only \(owner) can compact it, from one of \(owner)'s devices)."
        }
        return question
    }

    /// The selected zone if records can be saved in it from the focused device.
    private static func writableZone(state: inout InspectorState) -> RecordZoneID? {
        guard let zone = state.zone else {
            say("Select a zone first (Zones pane, j/k).", kind: .warning, state: &state)
            return nil
        }
        if zone.scope == .public || zone.zoneID.isDefaultZone {
            say("The sync engine keeps custom zones in sync; pick a custom zone such as Notes.", kind: .warning, state: &state)
            return nil
        }
        return zone.zoneID
    }

    /// The selected record, as the device has it (or the server, when the device has not fetched it).
    private static func editableRecord(state: inout InspectorState) -> Record? {
        guard let row = state.record else {
            say("Select a record first (Records pane).", kind: .warning, state: &state)
            return nil
        }
        guard writableZone(state: &state) != nil else { return nil }
        return row.device ?? row.server
    }

    private static func ownZone(for action: String, state: inout InspectorState) -> RecordZoneID? {
        guard let zone = state.zone else {
            say("Select a zone first (Zones pane).", kind: .warning, state: &state)
            return nil
        }
        guard zone.scope == .private, !zone.zoneID.isDefaultZone else {
            say("Only the owner can \(action) a zone, and only a custom zone of the private database.", kind: .warning, state: &state)
            return nil
        }
        return zone.zoneID
    }

    /// Moves the selection of the focused pane.
    static func move(_ key: KeyEvent, state: inout InspectorState) {
        let layout = state.layout
        let pane = state.overlay == .recordDetail ? InspectorPane.records : state.pane
        let visible = max(1, layout.visibleRows(of: pane))
        let normalized: KeyEvent = switch key {
        case .character("j"): .down
        case .character("k"): .up
        case .character("g"): .home
        case .character("G"): .end
        default: key
        }
        switch pane {
        case .zones:
            let items = state.snapshot.zones
            // Database headings and share lines are skipped, in the direction of travel.
            guard state.zoneTable.handle(normalized, rowCount: items.count, visibleRows: visible, selectable: { items[$0].entry != nil }),
                  let index = state.zoneTable.selection, let entry = items[index].entry
            else { return }
            state.chooseZone(entry.key)
        case .records:
            guard state.recordTable.handle(normalized, rowCount: state.snapshot.records.count, visibleRows: visible) else { return }
            state.selectedRecordName = state.record?.name
        case .tokens:
            guard state.tokenTable.handle(normalized, rowCount: state.snapshot.tokens.count, visibleRows: visible) else { return }
            let row = state.tokenTable.selection ?? 0
            state.tokenSelection = row == 0 ? nil : state.snapshot.tokenTotal - 1 - row
        case .notifications:
            guard state.notificationTable.handle(normalized, rowCount: state.snapshot.notifications.count, visibleRows: visible) else { return }
            let row = state.notificationTable.selection ?? 0
            state.notificationSelection = row == 0 ? nil : state.snapshot.notifications[row].index
        case .events:
            _ = EventLog.handle(normalized, state: &state)
        }
        state.needsRedraw = true
    }
}

extension String {
    /// Without spaces and tabs at either end.
    var trimmed: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        return String(drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}
