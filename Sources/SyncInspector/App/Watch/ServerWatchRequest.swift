import SyncCore

/// What a read of a watched server asks, besides the feed: every user's
/// zones, the records of one zone, and how far behind the focused client's
/// latest tokens are (``ServerWatchReading`` answers).
public struct ServerWatchRequest: Sendable, Hashable {
    /// The zone the records pane shows.
    public var zone: WatchedZone?
    /// The client the tokens are the latest of, and its user.
    public var client: String?
    public var user: String?
    /// Each place the client fetched, with the latest token it was given there.
    public var tokens: [Place]

    public struct Place: Sendable, Hashable {
        /// `database private` or `zone private/Notes`.
        public var place: String
        public var token: String
        /// The zone's owner as the client named it (a shared zone's); `nil`: the client's user.
        public var zoneOwner: String?

        public init(place: String, token: String, zoneOwner: String? = nil) {
            self.place = place
            self.token = token
            self.zoneOwner = zoneOwner
        }

        /// The database and zone the place names (`nil` zone: a database token).
        var target: (scope: DatabaseScope, zoneName: String?)? {
            let words = place.split(separator: " ", maxSplits: 1).map(String.init)
            guard words.count == 2 else { return nil }
            if words[0] == "database" { return DatabaseScope(rawValue: words[1]).map { ($0, nil) } }
            let parts = words[1].split(separator: "/", maxSplits: 1).map(String.init)
            guard words[0] == "zone", parts.count == 2, let scope = DatabaseScope(rawValue: parts[0]) else { return nil }
            return (scope, parts[1])
        }
    }

    public init(zone: WatchedZone?, client: String?, user: String?, tokens: [Place]) {
        self.zone = zone
        self.client = client
        self.user = user
        self.tokens = tokens
    }
}

/// A watched server's answer to a ``ServerWatchRequest``.
public struct ServerWatchReading: Sendable, Hashable {
    public var request: ServerWatchRequest
    public var users: [String]
    public var zones: [WatchedZone]
    public var records: [Record]
    public var lags: [WatchedLag]

    public init(request: ServerWatchRequest, users: [String], zones: [WatchedZone], records: [Record], lags: [WatchedLag]) {
        self.request = request
        self.users = users
        self.zones = zones
        self.records = records
        self.lags = lags
    }
}
