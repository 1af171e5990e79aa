import SyncWire

/// The sync doctor: names client mistakes from a server's event feed.
///
/// A pure analyzer: it reads feed events (``WireServerEvent``, with bodies)
/// in their order and answers diagnoses, one per mistake, client and place
/// (``Diagnosis``), each with the requests that show it and the lesson that
/// teaches the fix. It never asks the server anything, so it is tested on
/// events alone; `syncscope doctor` and the inspector's Diagnostics pane
/// feed it a running server's events.
///
/// Inspectors' reads and the server admin's calls are no client's traffic and are left out.
public struct SyncDoctor: Sendable {
    /// Milliseconds after a push reached a client within which a fetch must follow.
    public var pushWindow: Int64
    /// A web courier long-poll that comes back empty sooner than this (ms) was a short one.
    public var pollFloor: Int64
    /// Short polls of one client within ``stormWindow`` that make a storm.
    public var stormPolls: Int
    public var stormWindow: Int64
    /// Fetches of one place from no token (while holding a token for it) that make `tokenNotCached`.
    public var uncachedFetches: Int

    public init(pushWindow: Int64 = 30_000, pollFloor: Int64 = 1_000, stormPolls: Int = 5, stormWindow: Int64 = 10_000, uncachedFetches: Int = 3) {
        self.pushWindow = pushWindow
        self.pollFloor = pollFloor
        self.stormPolls = stormPolls
        self.stormWindow = stormWindow
        self.uncachedFetches = uncachedFetches
    }

    /// The diagnoses of these events (in feed order), as of `now` (ms since
    /// 1970: a push is ignored only once its window has passed), worst first,
    /// then in the order the clients appeared.
    public func diagnose(_ events: [WireServerEvent], now: Int64) -> [Diagnosis] {
        var checkups: [String: ClientCheckup] = [:]
        var order: [String] = []
        let development = DevelopmentSchemaTraces(events)
        for event in events {
            guard let key = event.trafficClient else { continue }
            if checkups[key] == nil {
                checkups[key] = ClientCheckup(key: key, name: event.clientName ?? key, user: event.user ?? "", doctor: self, development: development)
                order.append(key)
            }
            checkups[key]?.see(event)
        }
        var found: [Diagnosis] = []
        for key in order { found += checkups[key]?.finish(now: now) ?? [] }
        return found.enumerated().sorted { a, b in
            a.element.severity != b.element.severity ? a.element.severity > b.element.severity : a.offset < b.offset
        }.map(\.element)
    }
}
