import SyncDoctor
import SyncWire

/// What the inspector on a server shows of the focused client, worked out
/// from the events it keeps: its token history, the container of each of
/// its requests, and its traffic. ``ServerWatchState`` keeps one between
/// messages (``WatchFocusCache``), so it is worked out again only when the
/// client's events change or another client is focused.
struct WatchFocus: Sendable, Equatable {
    /// The client's key (`nil`: no client focused), and how many times its events had changed.
    var client: String?
    var version = 0
    /// The container the inspector reads (``ServerWatchState/container``).
    var container = ""
    var history: [TokenHistoryEntry] = []
    var containers: [UInt64: String] = [:]
    var traffic: [ClientTraffic] = []
    /// Short names of the history's tokens.
    var labels = TokenLabels([])
    /// For each place of the watched container, the history's latest entry
    /// that was given a token: the one whose lag the server is asked.
    var latestIssued: [String: Int] = [:]
    /// Those places, in the order each was first given a token.
    var issuedPlaces: [String] = []

    init() {}

    init(of client: String, version: Int, container: String, in events: [WireServerEvent]) {
        self.client = client
        self.version = version
        self.container = container
        history = TokenHistoryEntry.history(of: client, in: events)
        traffic = ClientTraffic.of(client, in: events)
        for event in events where event.client == client && event.kind == "request" {
            if let container = DatabasePath.container(of: event.path ?? "") { containers[event.seq] = container }
        }
        labels = TokenLabels(history)
        for (index, entry) in history.enumerated() where entry.issued != nil && isWatched(entry) {
            if latestIssued[entry.target] == nil { issuedPlaces.append(entry.target) }
            latestIssued[entry.target] = index
        }
    }

    /// Whether `entry` is a fetch in the watched container (or in no container the path names).
    func isWatched(_ entry: TokenHistoryEntry) -> Bool {
        containers[entry.seq].map { $0 == container } ?? true
    }

    /// Whether this was worked out for `client`'s events as they are now.
    func holds(for client: String, version: Int, container: String) -> Bool {
        self.client == client && self.version == version && self.container == container
    }
}
