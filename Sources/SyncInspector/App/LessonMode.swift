import SyncCore

/// Lesson-mode keys, before the inspector's own (pure, like ``InspectorKeys``).
public enum LessonMode {
    public static let help: [HelpEntry] = [
        HelpEntry("Enter", "next step (lesson pane focused)"),
        HelpEntry("p", "back one step"),
        HelpEntry("t", "outline: jump to a step"),
        HelpEntry("b", "start again"),
        HelpEntry("m", "follow the step's device / pin"),
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
        case .enter where state.lessonMode.narrativeFocused:
            return [.lessonNext]
        case .tab, .backTab:
            // The lesson pane comes after the notifications pane in Tab order.
            let forward = key == .tab
            // The event log beside the narrative is reached with E or a click.
            let order: [InspectorPane] = InspectorPane.allCases.filter { $0 != .events }
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
            // Moving in the grid takes the focus there.
            if state.lessonMode.narrativeFocused {
                state.lessonMode.narrativeFocused = false
                state.needsRedraw = true
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

    /// The panes a step changes, read from what it did.
    public static func touchedPanes(stepName: String, eventKinds: [String]) -> Set<LessonPane> {
        var panes: Set<LessonPane> = []
        switch stepName {
        case "createZone", "deleteZone", "purgeZone", "encryptedDataReset", "shareZone", "revokeShare": panes.insert(.zones)
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
