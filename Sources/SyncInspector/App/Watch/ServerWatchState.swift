import SyncCore
import SyncDoctor
import SyncWire

/// What the inspector shows of a server it watches with the admin token
/// (`syncscope inspect --server`): the event feed's events, the clients they
/// show, every user's zones, the records of the selected zone, how far behind
/// the focused client's tokens are, and the sync doctor's diagnoses. Part of
/// ``InspectorState``; ``ServerWatchReducer`` changes it, ``ServerWatchView`` draws it.
public struct ServerWatchState: Sendable, Equatable {
    /// Whether the inspector watches a server (its observer reads the event feed).
    public var isOn = false
    /// The feed's cursor: the next read asks for the events after it.
    public var next: UInt64 = 0
    /// The node whose feed the cursor counts in (new each time the server starts).
    public var node: String?
    /// The latest events, oldest first (at most ``eventLimit``).
    public var events: [WireServerEvent] = []
    /// Events the feed's ring dropped before they were read, plus those this state let go.
    public var missed = 0
    /// Every client seen, in the order they appeared.
    public var clients: [WatchedClient] = []
    /// Where each client is in ``clients``, by key.
    var clientIndex: [String: Int] = [:]
    public var users: [String] = []
    /// Every user's zones, user by user.
    public var zones: [WatchedZone] = [] {
        didSet { zoneRows = WatchedZoneRow.rows(of: zones) }
    }
    /// The rows of the zones pane: each zone, then the lines of its shares (``zoneTable`` selects among them).
    public private(set) var zoneRows: [WatchedZoneRow] = []
    /// The zone the records pane shows, and its records (sorted by name).
    public var recordsZone: WatchedZone?
    public var records: [Record] = []
    /// How far behind the server each of the focused client's latest tokens is.
    public var lags: [WatchedLag] = []
    /// The client the lags are about.
    public var lagsClient: String?
    public var diagnoses: [Diagnosis] = []
    /// The focused client's history, containers and traffic, kept between messages (``refreshFocus()``).
    var focusCache = WatchFocusCache()

    /// The container whose zones the inspector reads (the world's); a client's
    /// fetches in other containers are shown with their container's name.
    public var container = ""
    /// Its environment's name, shown beside it when it is not development (the default).
    public var environment = ""
    /// Whether the person chose the zone (otherwise the first custom zone is followed, as in process).
    public var zoneChosen = false

    public var pane: ServerWatchPane = .clients
    public var clientTable = TableState()
    public var zoneTable = TableState()
    public var recordTable = TableState()
    public var tokenTable = TableState(selection: nil)
    public var requestTable = TableState(selection: nil)
    public var diagnosisTable = TableState()
    /// What the detail view shows (Enter on a request or a diagnosis, `?`), and how far it is scrolled.
    public var detail: WatchDetail?
    public var detailScroll = 0

    /// Why the server cannot be read now (said on the message line).
    public var problem: String?
    /// The focused client's new name, while the person types it (on the message line).
    public var renaming: ClientRenaming?
    /// A feed read is under way.
    public var feedWaiting = false
    /// A read of the server (zones, records, lags) is under way; another is wanted after it.
    public var readWaiting = false
    public var readAgain = false
    /// How long one feed read waits for an event (seconds).
    public var pollTimeout: Double = 25

    /// How many events the inspector keeps.
    public static let eventLimit = 5000

    public init() {}

    /// The client keys act on.
    public var focusedClient: WatchedClient? {
        guard let index = clientTable.selection, clients.indices.contains(index) else { return nil }
        return clients[index]
    }

    /// The zone selected in the zones pane.
    public var selectedZone: WatchedZone? {
        guard let index = zoneTable.selection, zoneRows.indices.contains(index) else { return nil }
        return zoneRows[index].zone
    }

    /// Keeps `page`'s events (dropping the oldest beyond ``eventLimit``) and counts its clients.
    mutating func take(_ page: [WireServerEvent]) {
        events += page
        if events.count > Self.eventLimit {
            let extra = events.count - Self.eventLimit
            for event in events.prefix(extra) { focusCache.changed(event.client) }
            events.removeFirst(extra)
            missed += extra
        }
        for event in page {
            focusCache.changed(event.client)
            guard let key = event.trafficClient else { continue }
            let index: Int
            if let known = clientIndex[key] {
                index = known
            } else {
                index = clients.count
                clientIndex[key] = index
                clients.append(WatchedClient(key: key, name: event.clientName ?? key, user: event.user ?? ""))
            }
            if let name = event.clientName { clients[index].name = name }
            if clients[index].user.isEmpty, let user = event.user { clients[index].user = user }
            if event.kind == "request" {
                clients[index].requests += 1
                if let status = event.status, status != 200 { clients[index].errors += 1 }
            } else {
                clients[index].pushes += 1
            }
        }
    }

    /// The focused client's fetches, token by token (``TokenHistoryEntry``).
    public var history: [TokenHistoryEntry] { focus.history }

    /// The focused client's requests and the pushes it was given, oldest first.
    public var traffic: [ClientTraffic] { focus.traffic }

    /// The focused client's views: the ones kept while its events are the
    /// same, else worked out from the events (a state the reducer has not refreshed).
    var focus: WatchFocus {
        guard let client = focusedClient?.key else { return WatchFocus() }
        return keptFocus(of: client) ?? WatchFocus(of: client, version: focusCache.version(of: client), container: container, in: events)
    }

    /// The views kept, if they were worked out for `client`'s events as they are now.
    private func keptFocus(of client: String) -> WatchFocus? {
        guard let kept = focusCache.focus, kept.holds(for: client, version: focusCache.version(of: client), container: container) else { return nil }
        return kept
    }

    /// Works the focused client's views out again if its events or the focus
    /// changed since they were last: the reducer calls it after every message,
    /// so drawing a frame or taking a key costs no pass over the events.
    mutating func refreshFocus() {
        guard let client = focusedClient?.key, keptFocus(of: client) == nil else { return }
        focusCache.focus = focus
    }
}

/// What the detail view shows.
public enum WatchDetail: Sendable, Hashable {
    /// A request (its body and its answer) or a push, by its place in the feed.
    case event(seq: UInt64, node: String?)
    /// A diagnosis, by its place in ``ServerWatchState/diagnoses``.
    case diagnosis(Int)
    /// The keys.
    case help
}
