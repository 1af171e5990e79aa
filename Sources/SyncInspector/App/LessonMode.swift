import SyncCore

/// Lesson-mode keys, before the inspector's own (pure, like ``InspectorKeys``).
public enum LessonMode {
    public static let help: [HelpEntry] = [
        HelpEntry("Enter", "next step (from any pane but the log)"),
        HelpEntry("p", "back one step"),
        HelpEntry("t", "outline: jump to a step"),
        HelpEntry("b", "start again"),
        HelpEntry("m", "follow the step's device / pin"),
        HelpEntry("j k", "scroll the lesson text (its pane focused)"),
        HelpEntry("F5 ^P", "presenter layout on / off"),
        HelpEntry("C", "the step's code beside the lesson"),
        HelpEntry("A", "the answer to the question"),
    ]

    /// Handles a key in lesson mode. Returns `nil` when the key is the
    /// inspector's to handle (the state is then unchanged).
    public static func handle(_ key: KeyEvent, state: inout InspectorState) -> [InspectorCommand]? {
        guard let lesson = state.snapshot.lesson, state.overlay == nil, !state.isEditingFilter else { return nil }
        if state.lessonMode.showsSummary {
            switch key {
            case .character("b"), .character("r"), .enter:
                state.lessonMode.showsSummary = false
                state.needsRedraw = true
                return [.lessonRestart]
            case .character("q"):
                return [.quit]
            case .escape:
                state.lessonMode.showsSummary = false
                state.needsRedraw = true
                return []
            case .character("t"):
                state.lessonMode.showsSummary = false
                state.lessonMode.outlineSelection = max(0, lesson.stepsRun - 1)
                state.needsRedraw = true
                return []
            default:
                return []
            }
        }
        if let selection = state.lessonMode.outlineSelection {
            let count = lesson.outline.count
            switch key {
            case .character("j"), .down:
                state.lessonMode.outlineSelection = min(max(0, count - 1), selection + 1)
            case .character("k"), .up:
                state.lessonMode.outlineSelection = max(0, selection - 1)
            case .character("g"), .home:
                state.lessonMode.outlineSelection = 0
            case .character("G"), .end:
                state.lessonMode.outlineSelection = max(0, count - 1)
            case .pageDown:
                state.lessonMode.outlineSelection = min(max(0, count - 1), selection + 10)
            case .pageUp:
                state.lessonMode.outlineSelection = max(0, selection - 10)
            case .enter:
                state.lessonMode.outlineSelection = nil
                state.needsRedraw = true
                return [.lessonGoTo(stepsRun: selection + 1)]
            case .escape, .character("t"), .character("q"):
                state.lessonMode.outlineSelection = nil
            default:
                return []
            }
            state.needsRedraw = true
            return []
        }
        switch key {
        case .enter where state.lessonMode.narrativeFocused || state.pane != .events:
            // From any pane: after looking around, Enter goes on (the log keeps
            // its own Enter, opening a fetch; `i` opens a record).
            return [.lessonNext]
        case .function(5), .control("p"):
            state.lessonMode.presenting.toggle()
            state.lessonMode.narrativeZoomed = false
            state.lessonMode.narrativeFocused = true
            state.zoomed = false
            InspectorKeys.say(
                state.lessonMode.presenting
                    ? "Presenter layout: the lesson large, the panes the step touches enlarged, the step's code beside. F5 or Ctrl-P: back."
                    : "The panes again, the lesson below them (F5 or Ctrl-P: presenter layout).",
                state: &state)
            return []
        case .character("C"):
            guard lesson.code != nil || state.lessonMode.showsCode else {
                InspectorKeys.say("This step has no code to show (a step that acts on the world does).", state: &state)
                return []
            }
            state.lessonMode.showsCode.toggle()
            state.needsRedraw = true
            return []
        case .character("A") where lesson.question != nil:
            state.lessonMode.answerShown = true
            state.needsRedraw = true
            return []
        case .character("Z") where state.lessonMode.narrativeFocused && !state.lessonMode.presenting:
            state.lessonMode.narrativeZoomed.toggle()
            state.needsRedraw = true
            return []
        case .escape where state.lessonMode.narrativeZoomed:
            state.lessonMode.narrativeZoomed = false
            state.needsRedraw = true
            return []
        case _ where state.lessonMode.narrativeFocused && Self.narrativeScrollKeys.contains(key):
            scroll(key, lesson: lesson, state: &state)
            return []
        case .tab, .backTab:
            // The lesson pane comes after the notifications pane in Tab order.
            let forward = key == .tab
            // The event log beside the narrative is reached with E or a click;
            // the presenter layout goes through the panes it shows.
            let order: [InspectorPane] = state.lessonMode.presenting || state.lessonMode.narrativeZoomed
                ? state.tabOrder
                : InspectorPane.allCases.filter { $0 != .events }
            guard !order.isEmpty else { return [] }
            if state.lessonMode.narrativeFocused {
                state.lessonMode.narrativeFocused = false
                state.pane = forward ? order.first ?? .zones : order.last ?? .notifications
            } else if (forward && state.pane == order.last) || (!forward && state.pane == order.first) {
                state.lessonMode.narrativeFocused = true
            } else {
                return nil
            }
            state.needsRedraw = true
            return []
        case .character("h"), .left, .character("l"), .right, .character("j"), .down, .character("k"), .up:
            // Moving in the grid takes the focus there (j and k on the lesson pane scroll it, above).
            if state.lessonMode.narrativeFocused {
                state.lessonMode.narrativeFocused = false
                if !state.tabOrder.contains(state.pane) { state.pane = state.tabOrder.first ?? .zones }
                state.needsRedraw = true
                if state.lessonMode.narrativeZoomed { state.lessonMode.narrativeZoomed = false }
                return []
            }
            return nil
        case .character("p"):
            guard lesson.stepsRun > 0 else {
                InspectorKeys.say("This is the start of the lesson: nothing to go back to.", state: &state)
                return []
            }
            return [.lessonGoTo(stepsRun: lesson.stepsRun - 1)]
        case .character("b"):
            return [.lessonRestart]
        case .character("t"):
            state.lessonMode.outlineSelection = min(max(0, lesson.stepsRun - 1), max(0, lesson.outline.count - 1))
            state.needsRedraw = true
            return []
        case .character("m"):
            state.lessonMode.followsSteps.toggle()
            InspectorKeys.say(
                state.lessonMode.followsSteps
                    ? "The focused device follows the lesson's steps again."
                    : "Pinned to \(state.device?.name ?? "this device"): the focus stays here while the steps run (m follows again).",
                state: &state)
            return []
        case .character(let c) where (c.isNumber && c != "0") || c == "d" || c == "D":
            // Choosing a device pins it.
            if state.lessonMode.followsSteps {
                state.lessonMode.followsSteps = false
            }
            return nil
        default:
            return nil
        }
    }

    /// Scrolls the lesson text, never past its last window at the pane's width now.
    /// The keys that scroll the narration while the lesson pane has focus.
    static let narrativeScrollKeys: [KeyEvent] = [
        .character("j"), .down, .character("k"), .up, .pageDown, .pageUp, .home, .end, .character("g"), .character("G"),
    ]

    static func scroll(_ key: KeyEvent, lesson: LessonStatus, state: inout InspectorState) {
        guard let area = state.layout.lesson else { return }
        let inner = InspectorView.lessonTextArea(area.inset(by: 1), presenting: state.lessonMode.presenting)
        let rows = max(1, inner.height - 1)
        let count = LessonText.lines(
            lesson, width: inner.width, presenting: state.lessonMode.presenting, answerShown: state.lessonMode.answerShown).count
        let current = InspectorView.clampedScroll(state.lessonMode.narrativeScroll, lines: count, rows: rows)
        let next: Int = switch key {
        case .character("j"), .down: current + 1
        case .character("k"), .up: current - 1
        case .pageDown: current + max(1, rows - 1)
        case .pageUp: current - max(1, rows - 1)
        case .home, .character("g"): 0
        default: count
        }
        let clamped = InspectorView.clampedScroll(next, lines: count, rows: rows)
        if clamped != state.lessonMode.narrativeScroll {
            state.lessonMode.narrativeScroll = clamped
            state.needsRedraw = true
        }
    }

    /// The panes a step changes, read from what it did.
    public static func touchedPanes(stepName: String, eventKinds: [String]) -> Set<LessonPane> {
        var panes: Set<LessonPane> = []
        switch stepName {
        case "createZone", "deleteZone", "purgeZone", "encryptedDataReset", "shareZone", "revokeShare",
             "saveShare", "resolveShare", "acceptShare", "removeParticipant": panes.insert(.zones)
        case "save", "delete", "burst", "modifyRecords", "send", "cache", "pending", "lastSend": panes.insert(.records)
        case "tokens": panes.insert(.tokens)
        case "lastFetch": panes.formUnion([.records, .tokens])
        case "subscribe", "unsubscribe", "notifications", "subscriptions", "online", "offline": panes.insert(.notifications)
        case "signIn", "checkAccount": panes.formUnion([.zones, .records, .tokens])
        default: break
        }
        for kind in eventKinds {
            switch kind {
            case "databaseChanges": panes.formUnion([.zones, .tokens])
            case "zoneChanges": panes.formUnion([.zones, .records, .tokens])
            case "recordsSent", "conflict": panes.formUnion([.zones, .records])
            case "notification": panes.insert(.notifications)
            case "note", "error": panes.insert(.events)
            default: break
            }
        }
        return panes
    }
}

extension LessonMode {
    /// "Step 3 of 12: …" after stepping back or jumping.
    static func positionMessage(stepsRun: Int, stepCount: Int) -> String {
        stepsRun == 0
            ? "At the start of the lesson: a fresh world. Enter runs the first step."
            : "Rebuilt the world and ran \(stepsRun == 1 ? "step 1" : "steps 1 to \(stepsRun)") of \(stepCount) again; "
                + (stepsRun < stepCount ? "Enter runs step \(stepsRun + 1)." : "that was the last step.")
    }
}
