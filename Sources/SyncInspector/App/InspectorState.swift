import SyncCore
import SyncClient
import SyncWorlds

/// The panes, in Tab order: the four of the grid, then the event log
/// ("What happened"), which Tab reaches where the screen shows it (and `E`
/// always, zoomed when the screen has no room for it).
public enum InspectorPane: Int, CaseIterable, Hashable, Sendable {
    case zones
    case records
    case tokens
    case notifications
    case events

    /// Column (0 left, 1 right) and row (0 top, 1 bottom, 2 the event log) in the grid.
    var gridPosition: (column: Int, row: Int) {
        switch self {
        case .zones: (0, 0)
        case .records: (1, 0)
        case .tokens: (0, 1)
        case .notifications: (1, 1)
        case .events: (0, 2)
        }
    }

    /// "Zones", "Records", … for messages.
    public var name: String {
        switch self {
        case .zones: "Zones"
        case .records: "Records"
        case .tokens: "Tokens"
        case .notifications: "Push"
        case .events: "What happened"
        }
    }

    static func at(column: Int, row: Int) -> InspectorPane {
        if row >= 2 { return .events }
        return allCases.first { $0.gridPosition == (column, row) } ?? .zones
    }
}

/// Which side of a zone the records pane shows.
public enum RecordsMode: String, CaseIterable, Hashable, Sendable {
    /// Server and device cache side by side, one row per record name.
    case both
    /// What the server holds.
    case server
    /// What the focused device has cached.
    case device
}

/// A line at the bottom of the screen saying what just happened.
public struct InspectorMessage: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        case info
        case success
        case warning
        case error
    }

    public var text: String
    public var kind: Kind

    public init(_ text: String, kind: Kind = .info) {
        self.text = text
        self.kind = kind
    }
}

/// An action that asks "are you sure?" first.
public enum ConfirmAction: Hashable, Sendable {
    case deleteRecord(RecordID)
    case deleteZone(RecordZoneID)
    case purgeZone(RecordZoneID)
    case encryptedDataReset
    case compact
}

/// What a form is for.
public enum FormPurpose: Hashable, Sendable {
    case newRecord(RecordZoneID)
    /// Editing this version of the record (the device's copy, or the server's
    /// when the device has not fetched it).
    case editRecord(Record)
    case newZone
    case resultsLimit
}

/// A box drawn over the panes that takes the keys while it is open.
public enum InspectorOverlay: Hashable, Sendable {
    case help
    case form(FormPurpose, FormState)
    case confirm(ConfirmAction, question: String)
    case recordDetail
    /// Faults to switch on or off (`!`; see `InspectorFaults.swift`).
    case faults
}

/// The simulation clock as the status line shows it.
public struct ClockStatus: Hashable, Sendable {
    public var now: Milliseconds
    public var isPaused: Bool
    /// Virtual seconds per real second.
    public var speed: Double
    /// Real time (a device on a real server): pause and speed do not apply.
    public var isLive = false

    public init(now: Milliseconds, isPaused: Bool, speed: Double) {
        self.now = now
        self.isPaused = isPaused
        self.speed = speed
    }

    /// The speeds `+` and `-` step through.
    public static let speeds: [Double] = [0.25, 0.5, 1, 2, 5, 10, 20, 50]
}

/// Everything the screen shows, as values: what the person chose (focus,
/// selections, forms) and a snapshot of the simulation.
///
/// `InspectorKeys.handle` changes it for a key, `InspectorController.refresh`
/// fills the snapshot from the simulation, and `InspectorView.render` draws it.
public struct InspectorState: Sendable {
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

    public init(clock: ClockStatus, screenSize: Size = Size(width: 80, height: 24)) {
        self.clock = clock
        self.screenSize = screenSize
    }

    /// Where everything goes on the screen this state was laid out for.
    public var layout: InspectorLayout {
        InspectorLayout(size: screenSize, hasLesson: snapshot.lesson != nil, zoomed: zoomed ? pane : nil)
    }

    /// The panes Tab goes through: the event log only when it is on screen
    /// (or a pane is zoomed: then Tab shows each pane zoomed in turn).
    public var tabOrder: [InspectorPane] {
        let shown = zoomed || InspectorLayout(size: screenSize, hasLesson: snapshot.lesson != nil).events != nil
        return shown ? InspectorPane.allCases : InspectorPane.allCases.filter { $0 != .events }
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

// MARK: - Snapshot

/// A device as the header and the status line show it.
public struct DeviceSummary: Hashable, Sendable {
    public var name: String
    public var user: String
    public var deviceID: String
    public var isOnline: Bool
    public var autoFetchOnPush: Bool
    public var pendingChanges: Int
    public var fetchRuns: Int
    public var lastError: CloudError?

    /// "iPhone (alice)".
    public var label: String { "\(name) (\(user))" }
}

/// A zone, named by database and ID.
public struct ZoneKey: Hashable, Sendable {
    public var scope: DatabaseScope
    public var zoneID: RecordZoneID

    public init(scope: DatabaseScope, zoneID: RecordZoneID) {
        self.scope = scope
        self.zoneID = zoneID
    }
}

/// How the focused device's copy of a zone compares with the server's.
public enum ZoneSyncState: Hashable, Sendable {
    /// The device's token is the server's latest: nothing to fetch.
    case inSync
    /// A fetch from the device's token would return this many changes.
    case behind(Int)
    /// The device has no token for the zone: a fetch returns every record.
    case notFetched(Int)
    /// The zone was deleted on the server (or is no longer shared).
    case deleted
    /// The user deleted the app's data in the zone (`userDeletedZone`).
    case purged
    /// The user reset their encrypted data: the zone is gone until it is uploaded again.
    case reset
    /// The server refuses the device's token (`changeTokenExpired`).
    case tokenExpired
    /// The server refuses the device's token for another reason.
    case tokenRefused(String)
    /// The device created it; the server does not have it yet.
    case notSent
    /// The default zones: no change tokens there.
    case noChangeFetching

    /// A few words for a narrow column.
    public var short: String {
        switch self {
        case .inSync: "in sync"
        case .behind(let n): "behind \(n)"
        case .notFetched: "no token"
        case .deleted: "deleted"
        case .purged: "purged"
        case .reset: "reset"
        case .tokenExpired: "expired"
        case .tokenRefused: "refused"
        case .notSent: "not sent"
        case .noChangeFetching: "—"
        }
    }

    /// A phrase for a wide column.
    public var long: String {
        switch self {
        case .inSync: "in sync"
        case .behind(let n): "behind by \(n) change\(n == 1 ? "" : "s")"
        case .notFetched(let n): "not fetched (\(n) to get)"
        case .deleted: "deleted"
        case .purged: "purged"
        case .reset: "reset"
        case .tokenExpired: "token expired"
        case .tokenRefused: "token refused"
        case .notSent: "not on the server yet"
        case .noChangeFetching: "no change fetching"
        }
    }

    var isProblem: Bool {
        switch self {
        case .deleted, .purged, .reset, .tokenExpired, .tokenRefused: true
        default: false
        }
    }
}

/// One zone of the zones pane.
public struct ZoneEntry: Hashable, Sendable {
    public var scope: DatabaseScope
    public var zoneID: RecordZoneID
    /// Records on the server (`nil` when the server no longer has the zone).
    public var recordCount: Int?
    /// The sequence of the zone's latest change on the server.
    public var lastSequence: Int64?
    public var serverToken: ServerChangeToken?
    public var deviceToken: ServerChangeToken?
    /// The change each token stands for ("through change 41"), when the
    /// server's inside can be seen. Two tokens can differ in text and stand
    /// for the same change: a token also keeps where its first fetch began.
    public var serverThrough: Int64?
    public var deviceThrough: Int64?
    public var state: ZoneSyncState

    public var key: ZoneKey { ZoneKey(scope: scope, zoneID: zoneID) }

    /// One line on how the device's token compares with the server's, for
    /// the zones pane's footer: the first of the wordings that fits `width`.
    public func tokenComparison(width: Int) -> String {
        let options: [String]
        switch state {
        case .noChangeFetching:
            options = ["The default zone has no change tokens: devices do not fetch changes from it.", "No change tokens in a default zone."]
        case .notFetched:
            options = ["The device has no token yet: its first fetch brings every record.", "No token yet: a fetch brings every record.", "No token yet."]
        case .notSent, .deleted, .purged, .reset:
            options = ["The server has no token for this zone now (\(state.long)).", "No server token (\(state.short))."]
        case .tokenExpired, .tokenRefused:
            options = ["The server refuses the device's token: its next fetch starts again from no token.", "Token refused: next fetch starts over.", "Token refused."]
        case .inSync, .behind:
            guard let serverToken, let deviceToken else { return "" }
            let same = serverToken == deviceToken
            if case .behind = state {
                if let serverThrough, let deviceThrough {
                    options = [
                        "Device's token through change \(deviceThrough), server's through change \(serverThrough): \(state.long).",
                        "Device through change \(deviceThrough), server \(serverThrough): \(state.short).",
                        "Device #\(deviceThrough), server #\(serverThrough).",
                    ]
                } else {
                    options = ["A fetch from the device's token brings changes: \(state.long).", "\(state.long)."]
                }
            } else if same {
                options = [
                    "The device holds the server's latest token" + (serverThrough.map { ": through change \($0)." } ?? "."),
                    "Same token" + (serverThrough.map { ", through change \($0)." } ?? "."),
                ]
            } else if let serverThrough, let deviceThrough, serverThrough == deviceThrough {
                options = [
                    "Tokens differ in text, yet both stand for change \(serverThrough): same changes (a token also keeps where its first fetch began).",
                    "Tokens differ, same changes: both through change \(serverThrough).",
                    "Differ, same changes: both #\(serverThrough).",
                ]
            } else {
                options = [
                    "Tokens differ in text, yet cover the same changes: a fetch from the device's token brings nothing.",
                    "Tokens differ, same changes: nothing to fetch.",
                    "Differ, same changes.",
                ]
            }
        }
        return options.first { TextWidth.of($0) <= width } ?? TextWidth.truncate(options.last ?? "", to: width)
    }

    /// "Notes", or "Notes@alice" for another user's zone.
    public func displayName(for user: String) -> String {
        if zoneID.ownerName == user || zoneID.ownerName == RecordZoneID.publicOwnerName {
            return zoneID.isDefaultZone ? "default" : zoneID.zoneName
        }
        return "\(zoneID.zoneName)@\(zoneID.ownerName)"
    }
}

/// A row of the zones pane: a database heading or a zone.
public enum ZoneListItem: Hashable, Sendable {
    case header(DatabaseScope)
    case zone(ZoneEntry)

    public var entry: ZoneEntry? {
        if case .zone(let entry) = self { return entry }
        return nil
    }
}

/// How a record's server version and the device's copy differ.
public enum RecordMarker: Hashable, Sendable {
    /// Both have the same version.
    case same
    /// On the server, not (yet) on the device: a fetch brings it.
    case new
    /// The server's version is newer than the device's copy.
    case changed
    /// The device still has it; the server deleted it.
    case deleted
    /// Only on the device: created there and not sent yet.
    case localOnly

    /// One character for the table.
    public var symbol: String {
        switch self {
        case .same: " "
        case .new: "+"
        case .changed: "~"
        case .deleted: "−"
        case .localOnly: "↑"
        }
    }

    public var explanation: String {
        switch self {
        case .same: "the device has the server's version"
        case .new: "new on the server since the device's token: the next fetch brings it"
        case .changed: "changed on the server since the device's token: the next fetch brings the new version"
        case .deleted: "deleted on the server since the device's token: the next fetch removes it"
        case .localOnly: "created on the device, not sent yet"
        }
    }
}

/// One record name of the selected zone, with the server's and the device's version.
public struct RecordRow: Hashable, Sendable {
    public var name: String
    public var server: Record? {
        get { versions.server }
        set { versions = Versions(server: newValue, device: versions.device) }
    }
    public var device: Record? {
        get { versions.device }
        set { versions = Versions(server: versions.server, device: newValue) }
    }
    public var marker: RecordMarker
    /// The device has a change to this record waiting to be sent.
    public var hasPendingChange: Bool
    /// The two versions, boxed: a row is a few words, so inserting one among
    /// 100,000 rows moves little memory (see ``RecordRowsModel``).
    private var versions: Versions

    private final class Versions: Sendable {
        let server: Record?
        let device: Record?

        init(server: Record?, device: Record?) {
            self.server = server
            self.device = device
        }
    }

    public init(name: String, server: Record?, device: Record?, marker: RecordMarker, hasPendingChange: Bool) {
        self.name = name
        versions = Versions(server: server, device: device)
        self.marker = marker
        self.hasPendingChange = hasPendingChange
    }

    public static func == (a: RecordRow, b: RecordRow) -> Bool {
        a.name == b.name && a.marker == b.marker && a.hasPendingChange == b.hasPendingChange
            && (a.versions === b.versions || (a.server == b.server && a.device == b.device))
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(server)
        hasher.combine(device)
        hasher.combine(marker)
        hasher.combine(hasPendingChange)
    }

    public var type: String { server?.recordType ?? device?.recordType ?? "" }

    /// The first string field (the title of a note), for the list.
    public static func summary(of record: Record?) -> String {
        guard let record else { return "" }
        for key in ["title", "caption", "text", "name"] {
            if case .string(let s)? = record[key] { return s }
        }
        for field in record.fields {
            if case .string(let s) = field.value { return s }
        }
        return record.fields.first.map { "\($0.name)=\($0.value.displayString)" } ?? ""
    }

    /// Who changed it last, for example "alice-iPhone".
    public static func modifiedBy(_ record: Record?) -> String {
        guard let stamp = record?.modified else { return "" }
        return stamp.deviceID ?? stamp.userRecordName
    }
}

/// What the rows of a record list were built from: when none of it changed,
/// the sorted rows are reused.
public struct RecordListKey: Hashable, Sendable {
    public var zone: ZoneKey
    public var device: String
    public var serverSequence: Int64?
    public var serverRecordCount: Int?
    public var deviceToken: ServerChangeToken?
    /// Bumped by every sync event of the device.
    public var deviceGeneration: Int
}

/// The records of the selected zone, in the order shown (by name in
/// ``NaturalOrder``, note-2 before note-10, unless a column sort is chosen:
/// ``RecordRowsModel`` keeps the rows themselves in that order), and the rows
/// the filter keeps.
public struct RecordList: Sendable {
    public var key: RecordListKey?
    public internal(set) var rows: [RecordRow] = []
    /// Indices into `rows` that the filter keeps (`nil`: all).
    public internal(set) var visible: [Int]?
    public private(set) var filter = ""
    /// Counts by marker, for the title.
    public internal(set) var counts: [RecordMarker: Int] = [:]
    /// Rows with a change waiting to be sent.
    public internal(set) var unsent = 0

    public init() {}

    init(key: RecordListKey?, rows: [RecordRow]) {
        self.key = key
        self.rows = rows
        var counts: [RecordMarker: Int] = [:]
        for row in rows where row.marker != .same { counts[row.marker, default: 0] += 1 }
        self.counts = counts
        unsent = rows.lazy.filter(\.hasPendingChange).count
    }

    /// Rows shown (after the filter).
    public var count: Int { visible?.count ?? rows.count }

    public func row(at index: Int) -> RecordRow? {
        let actual = visible.map { index >= 0 && index < $0.count ? $0[index] : -1 } ?? index
        return rows.indices.contains(actual) ? rows[actual] : nil
    }

    /// The shown row of this name, or where it would be.
    public func index(of name: String) -> (index: Int, found: Bool) {
        if sort != .name {
            // Another order than by name: look the name up row by row.
            for index in 0..<count where row(at: index)?.name == name { return (index, true) }
            return (0, false)
        }
        var low = 0
        var high = count
        while low < high {
            let mid = (low + high) / 2
            if NaturalOrder.less(row(at: mid)?.name ?? "", name) { low = mid + 1 } else { high = mid }
        }
        return (low, low < count && row(at: low)?.name == name)
    }

    /// Keeps the rows the filter (case-insensitive, on names and string
    /// fields) and the mode (rows the side shown has) let through; `newSort`
    /// names the order the rows are in (it does not reorder them). Only
    /// recomputes when the filter, the mode or the rows changed.
    mutating func apply(filter newFilter: String, mode: RecordsMode, sort newSort: RecordSort = .name) {
        let selection = Selection(filter: newFilter, mode: mode, sort: newSort)
        guard selection != applied else { return }
        applied = selection
        filter = newFilter
        sort = newSort
        guard !newFilter.isEmpty || mode != .both else {
            visible = nil
            return
        }
        let needle = newFilter.lowercased()
        // The rows are kept in the order shown (``RecordRowsModel/order``):
        // the filter's rows are ascending indices into them.
        visible = rows.indices.filter { Self.keeps(rows[$0], needle: needle, mode: mode) }
    }

    /// Whether the filter (`needle`, lowercased) and the mode let `row` through.
    static func keeps(_ row: RecordRow, needle: String, mode: RecordsMode) -> Bool {
        switch mode {
        case .both: break
        case .server: if row.server == nil { return false }
        case .device: if row.device == nil { return false }
        }
        guard !needle.isEmpty else { return true }
        if row.name.lowercased().contains(needle) { return true }
        for record in [row.server, row.device].compactMap({ $0 }) {
            for field in record.fields {
                if case .string(let s) = field.value, s.lowercased().contains(needle) { return true }
            }
        }
        return false
    }

    /// The order the rows are in.
    public private(set) var sort: RecordSort = .name

    struct Selection: Hashable {
        var filter: String
        var mode: RecordsMode
        var sort: RecordSort
    }

    var applied: Selection?
}

/// The order of the records pane (`S` cycles it; the column's header shows ▲ or ▼).
public enum RecordSort: String, CaseIterable, Hashable, Sendable {
    /// By name, numbers by value (note-2 before note-10): ▲.
    case name
    /// The latest change first (server's version, else the device's copy): ▼.
    case modified
    /// By record type, then by name: ▲.
    case type

    /// The column the order is by, as the records table titles it.
    public var column: String {
        switch self {
        case .name: "name"
        case .modified: "modified by"
        case .type: "type"
        }
    }

    /// The header's mark: ▲ ascending, ▼ newest first.
    public var indicator: String { self == .modified ? "▼" : "▲" }

    /// "by name", for messages.
    public var phrase: String {
        switch self {
        case .name: "by name (numbers by value)"
        case .modified: "by last change, newest first"
        case .type: "by record type, then name"
        }
    }

    /// The next order `S` switches to.
    public var next: RecordSort {
        let all = Self.allCases
        return all[((all.firstIndex(of: self) ?? 0) + 1) % all.count]
    }

    /// The comparator of this order: a strict total order (ties fall back to
    /// the name in ``NaturalOrder``), for sorting rows and for the records
    /// model to insert a changed row where it belongs.
    public func areInIncreasingOrder(_ a: RecordRow, _ b: RecordRow) -> Bool {
        switch self {
        case .name:
            break
        case .modified:
            let ta = (a.server ?? a.device)?.modified?.timestamp ?? .min
            let tb = (b.server ?? b.device)?.modified?.timestamp ?? .min
            if ta != tb { return ta > tb }
        case .type:
            if a.type != b.type { return NaturalOrder.less(a.type, b.type) }
        }
        return NaturalOrder.less(a.name, b.name)
    }
}

/// A notification of the focused device: delivered, or still on its way.
public struct NotificationEntry: Hashable, Sendable {
    public enum Status: Hashable, Sendable {
        case delivered(at: Milliseconds, latency: Milliseconds)
        case coalescing(until: Milliseconds)
        case inTransit(arrivesAt: Milliseconds)
        case heldWhileOffline
        /// An injected push fault lost it: it never arrives.
        case dropped(at: Milliseconds)
    }

    public var notification: CloudNotification
    public var status: Status
    /// The fetch run it triggered, as the device recorded it.
    public var fetch: FetchRun?
    /// Index in the device's whole notification list (`nil` while on its way).
    public var index: Int?
    /// The injected push fault that hit it: "dropped", "duplicate", "delayed 500 ms", "reordered".
    public var fault: String? = nil
}

/// What a fetch from an old token would return now.
public struct Rewind: Hashable, Sendable {
    public enum Change: Hashable, Sendable {
        case changed(String, type: String, isNew: Bool)
        case deleted(String, type: String)
        case zoneChanged(RecordZoneID)
        case zoneRemoved(RecordZoneID, ZoneDeletionReason)
    }

    public var receipt: TokenReceipt
    /// The server's words for what the token stands for.
    public var meaning: String
    /// The first batch a fetch from the token would return now…
    public var changes: [Change]
    public var moreComing: Bool
    /// …or why the server would refuse it.
    public var error: CloudError?
}

/// The writer, as the status line shows it.
public struct WriterStatus: Hashable, Sendable {
    public var isRunning: Bool
    public var interval: Milliseconds
    public var actions: Int
}

/// What the inspector read from the simulation at its last refresh.
public struct InspectorSnapshot: Sendable {
    public var devices: [DeviceSummary] = []
    /// The fault rules in force, in words.
    public var faultRules: [String] = []
    /// Database headings and zones as the focused device's user sees them.
    public var zones: [ZoneListItem] = []
    public var records = RecordList()
    /// The newest tokens of the focused device, oldest first (at most ``tokenLimit``).
    public var tokens: [TokenReceipt] = []
    /// How many tokens the device received in all.
    public var tokenTotal = 0
    public var rewind: Rewind?
    /// Notifications still on their way, then delivered ones, newest first.
    public var notifications: [NotificationEntry] = []
    public var notificationTotal = 0
    /// The latest simulation events, oldest first.
    public var events: [WorldEvent] = []
    public var eventCount = 0
    public var writer: WriterStatus?
    /// The lesson being played, if any.
    public var lesson: LessonStatus?

    /// The most tokens and notifications kept for display.
    public static let tokenLimit = 500

    public init() {}
}
