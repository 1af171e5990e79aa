import SyncCore
import SyncClient

/// Everything the screen shows, as values: what the person chose (focus,
/// selections, forms) and a snapshot of the simulation.
///
/// ``InspectorReducer/reduce(_:_:)`` changes it for every message (a key
/// through `InspectorKeys.handle`, a snapshot of the world read by an
/// effect), and `InspectorView.render` draws it. Every piece of the
/// inspector's state is in it: the controller around it holds only the
/// terminal, the world and the effect runner.
public struct InspectorState: Sendable, Equatable {
    public var snapshot = InspectorSnapshot()
    /// Index into `snapshot.devices`.
    public var focusedDevice = 0
    public var pane: InspectorPane = .zones
    public var recordsMode: RecordsMode = .both
    /// The zone whose records are shown (kept by identity, not by row).
    public var selectedZone: ZoneKey?
    /// Whether the person chose the zone (otherwise the first custom zone is followed).
    public var zoneChosen = false
    public var zoneTable = TableState()
    /// The selected record, by name (rows are sorted by name, numbers by value).
    public var selectedRecordName: String?
    public var recordTable = TableState()

    /// Shows `zone`'s records: another zone than the one shown starts its
    /// records list afresh (no selection, scrolled to the top).
    mutating func showZone(_ zone: ZoneKey?) {
        guard selectedZone != zone else { return }
        selectedZone = zone
        selectedRecordName = nil
        recordTable = TableState()
    }

    /// The person picked `zone` (it is no longer chosen for them).
    mutating func chooseZone(_ zone: ZoneKey) {
        zoneChosen = true
        showZone(zone)
    }
    /// The selected token as an index into the device's whole history
    /// (0: the first it ever received); `nil` follows the newest.
    public var tokenSelection: Int?
    public var tokenTable = TableState()
    /// The selected notification, as for tokens.
    public var notificationSelection: Int?
    public var notificationTable = TableState()
    /// Shows only records whose name or fields contain this text.
    public var filter = ""
    public var isEditingFilter = false
    public var overlay: InspectorOverlay?
    /// Whether the faults overlay aims at every device (else the focused one).
    public var faultsForEveryone = false
    public var message: InspectorMessage?
    /// Why the server (over the network) could not be read, while it cannot
    /// (see `ServerReadStatus.swift`).
    public var serverReadProblem: String?
    /// A device's sync error on the message line, until the server answers that device again.
    public var syncProblem: SyncProblem?
    /// `resultsLimit` for one-batch fetches (`b`).
    public var resultsLimit = 2
    /// Saves in a write burst (`W`).
    public var burstSize = 20
    public var clock: ClockStatus
    /// The terminal size the state was last laid out for (for paging).
    public var screenSize: Size
    /// Set when a key or an event changed what is on screen.
    public var needsRedraw = true
    /// Lesson mode's own choices (lessons only).
    public var lessonMode = LessonModeState()
    /// The focused pane fills the screen between the header and the message
    /// line (`Z`; the event log also with `E` on screens without room for it).
    public var zoomed = false
    /// The event log's scroll position, filters and opened fetches.
    public var eventLog = EventLogState()
    /// The order of the records pane's rows (`S` cycles it).
    public var recordSort: RecordSort = .name
    /// What the inspector read of the world beyond the panes (the last server reading, the records pane's model).
    public var world = WorldReadState()
    /// The effects on the world: the one under way and those waiting.
    public var effects = EffectQueue()
    /// How time runs for the world (chosen when the inspector starts).
    public var timeline: InspectorTimeline = .virtual(.init())
    /// Real time at the loop's last wake-up.
    public var realNow: Milliseconds = 0
    /// A server watched with its admin token (`inspect --server`): its clients, feed and diagnoses.
    public var watch = ServerWatchState()

    public init(clock: ClockStatus, screenSize: Size = Size(width: 80, height: 24)) {
        self.clock = clock
        self.screenSize = screenSize
    }

    /// Where everything goes on the screen this state was laid out for.
    public var layout: InspectorLayout { layout(for: screenSize) }

    /// Where everything goes on a screen of `size`, for what this state shows.
    public func layout(for size: Size) -> InspectorLayout {
        InspectorLayout(size: size, hasLesson: snapshot.lesson != nil, zoomed: zoomed ? pane : nil, arrangement: lessonArrangement)
    }

    /// How the lesson's screen is arranged: the presenter layout, the
    /// lesson pane zoomed, or the panes with the lesson pane below them
    /// (and the step's code beside it on `C`).
    public var lessonArrangement: InspectorLayout.LessonArrangement {
        lessonMode.arrangement(code: snapshot.lesson?.code != nil)
    }

    /// The panes Tab goes through: the event log only when it is on screen
    /// (or a pane is zoomed: then Tab shows each pane zoomed in turn); in the
    /// presenter layout, the panes it shows.
    public var tabOrder: [InspectorPane] {
        if zoomed { return InspectorPane.allCases }
        var unzoomed = self
        unzoomed.zoomed = false
        let layout = unzoomed.layout
        if snapshot.lesson != nil, lessonMode.presenting || lessonMode.narrativeZoomed {
            return InspectorPane.allCases.filter { !layout.rect(of: $0).isEmpty }
        }
        return layout.events != nil ? InspectorPane.allCases : InspectorPane.allCases.filter { $0 != .events }
    }

    /// Whether `pane` is drawn as the focused pane (in a lesson, the
    /// narrative pane may have the focus instead: only one pane has it).
    public func isFocused(_ pane: InspectorPane) -> Bool {
        self.pane == pane && !(snapshot.lesson != nil && lessonMode.narrativeFocused)
    }

    /// The device keys act on.
    public var device: DeviceSummary? {
        snapshot.devices.indices.contains(focusedDevice) ? snapshot.devices[focusedDevice] : nil
    }

    /// The zone entry of the selected zone, when it is listed.
    public var zone: ZoneEntry? {
        guard let selectedZone else { return nil }
        return snapshot.zones.lazy.compactMap(\.entry).first { $0.key == selectedZone }
    }

    /// The selected record row, if any.
    public var record: RecordRow? {
        guard let index = recordTable.selection else { return nil }
        return snapshot.records.row(at: index)
    }
}
