import SyncCore

/// What the lesson-mode screen chose, apart from the rest of the inspector:
/// which pane has focus (the narrative or the grid), whether the focused
/// device follows the steps, the highlight of what the last step changed,
/// and the outline and end-of-lesson boxes.
///
/// ``LessonMode/handle(_:state:)`` changes it for a key; the update step
/// calls ``LessonModeState/stepRan(device:touched:devices:now:)`` after each
/// step; ``InspectorView`` draws it.
public struct LessonModeState: Hashable, Sendable {
    /// The narrative pane has focus: Enter runs the next step. Otherwise
    /// one of the four grid panes has it (``InspectorState/pane``).
    public var narrativeFocused = true
    /// The focused device is the one the latest step acts on. A device key
    /// (1-9, d, D) or `m` pins the device instead; `m` follows again.
    public var followsSteps = true
    /// Panes the latest step changed, highlighted until ``highlightUntil``.
    public var highlighted: Set<LessonPane> = []
    /// Real time (ms) when the highlight goes.
    public var highlightUntil: Milliseconds?
    /// The outline of the steps is open, with this row selected.
    public var outlineSelection: Int?
    /// The end-of-lesson summary is shown.
    public var showsSummary = false
    /// The first line of the lesson pane's text on screen (j/k scroll it
    /// while the pane has focus; a step starts again at the top).
    public var narrativeScroll = 0
    /// The lesson pane fills the screen between the header and the message line (`Z` on it).
    public var narrativeZoomed = false
    /// The presenter layout (F5 or Ctrl-P, or `syncscope lesson NAME --present`):
    /// the narration large, the panes the step touched enlarged, the step's code beside.
    public var presenting = false
    /// The code pane is shown beside the narration outside the presenter layout (`C`).
    public var showsCode = false
    /// The panes the latest step changed (kept after the highlight goes: the
    /// presenter layout enlarges them until the next step).
    public var touched: Set<LessonPane> = []
    /// The answer of the latest `ask:` step is shown (`A`).
    public var answerShown = false

    /// How long a step's highlight stays, in real milliseconds.
    public static let highlightDuration: Milliseconds = 1_500

    public init() {}

    /// How the screen is arranged for these choices (`code`: the step has code to show).
    public func arrangement(code: Bool) -> InspectorLayout.LessonArrangement {
        if presenting { return .presenter(touched: touched, code: code) }
        if narrativeZoomed { return .narrationZoomed }
        return .panes(code: showsCode && code)
    }

    /// Whether a key box of lesson mode is open.
    public var hasOverlay: Bool { outlineSelection != nil || showsSummary }

    /// After a step: follow its device (unless pinned) and highlight what it touched.
    public mutating func stepRan(device: String?, touched: Set<LessonPane>, devices: [String], now: Milliseconds) -> Int? {
        highlighted = touched
        self.touched = touched
        narrativeScroll = 0
        answerShown = false
        highlightUntil = touched.isEmpty ? nil : now + Self.highlightDuration
        guard followsSteps, let device else { return nil }
        return devices.firstIndex(of: device)
    }

    /// Drops the highlight once its time is up. Returns whether it changed.
    public mutating func expireHighlight(now: Milliseconds) -> Bool {
        guard let until = highlightUntil, now >= until else { return false }
        highlighted = []
        highlightUntil = nil
        return true
    }
}
