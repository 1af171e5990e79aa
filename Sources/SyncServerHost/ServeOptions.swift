import Foundation
import SyncCore

/// How `syncscope serve` runs.
public struct ServeOptions: Sendable {
    public var host: String
    public var port: Int
    /// `nil`: keep nothing (`--in-memory`).
    public var dataDirectory: URL?
    /// Users to have; without any, `alice` and `bob`.
    public var users: [String]
    public var retention: Int?
    public var coalescingWindow: Milliseconds
    /// A state file to import at start-up (`--import`).
    public var importFile: URL?
    /// A schema file (CloudKit's schema language) that ``schemaContainer``
    /// has in both environments from start-up, as after a deploy (`--schema`).
    public var schemaFile: URL?
    /// The container `--schema` applies to (`--schema-container`).
    public var schemaContainer: String = ServeOptions.defaultSchemaContainer
    /// The container the command line uses when none is named.
    public static let defaultSchemaContainer = "iCloud.com.example.SyncScope"
    /// The seed of a new data folder; `nil`: a random one. An existing data
    /// folder keeps the seed it was made with.
    public var seed: UInt64?
    /// Requests are logged unless `quiet`.
    public var quiet: Bool
    /// Journal rows after which the server writes a checkpoint, at the
    /// least. A checkpoint costs what the state holds, so the server waits for
    /// as many rows as half the records (and tombstones) its latest checkpoint
    /// held when that is more: the checkpoints' cost per row stays the same
    /// however large the state grows, and a restart replays at most that many
    /// rows after reading the checkpoint (more only while the previous
    /// checkpoint is still being written: one is queued at a time).
    public var checkpointEvery: Int
    /// A device not polling for this long counts as offline: the push
    /// service then keeps only its latest notification.
    public var offlineAfter: Milliseconds
    /// The largest request body, in bytes.
    public var maxBodyBytes: Int
    /// `serve --recover`: drop a damaged journal tail (saying how many calls
    /// that loses) instead of refusing to start.
    public var recover: Bool
    /// Seconds a client has from the first byte of a request to the end of its headers.
    public var headerTimeout: Double
    /// Seconds a client has from the end of the headers to the end of the body.
    public var bodyTimeout: Double
    /// Seconds a kept-alive connection may sit idle between requests.
    public var idleTimeout: Double
    /// Open connections at most; one more is answered 503 with `retryAfter` and closed.
    public var maxConnections: Int
    /// Open long-polls per device at most; one more is answered 503 with `retryAfter`.
    public var maxPollsPerDevice: Int
    /// On a shared journal: rows kept behind the stored checkpoint, at least
    /// (at least one checkpoint interval is kept too); older rows are deleted,
    /// and a node that far behind restores the checkpoint instead.
    public var journalKeepRows: Int = 10_000
    /// Server-to-server keys (`--server-key KEYID=public.pem`): key ID → the
    /// ECDSA P-256 public key in PEM. A request signed with one reaches the
    /// public database (see ``ServerKeyRing``).
    public var serverKeys: [String: String] = [:]
    /// The events the event feed keeps (`serve --event-feed N`); 0 turns the feed off.
    public var eventFeedSize: Int = 10_000
    /// `serve --log-inspector-reads`: log the requests an inspector makes too.
    public var logInspectorReads = false

    public init(
        host: String = "127.0.0.1", port: Int = 8400, dataDirectory: URL? = ServeOptions.defaultDataDirectory, users: [String] = [],
        retention: Int? = nil, coalescingWindow: Milliseconds = 200, importFile: URL? = nil, seed: UInt64? = nil, quiet: Bool = false,
        checkpointEvery: Int = 20_000, offlineAfter: Milliseconds = 60_000, maxBodyBytes: Int = 2 * 1024 * 1024, recover: Bool = false,
        headerTimeout: Double = 10, bodyTimeout: Double = 30, idleTimeout: Double = 75, maxConnections: Int = ServeOptions.defaultMaxConnections,
        maxPollsPerDevice: Int = 2
    ) {
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.users = users
        self.retention = retention
        self.coalescingWindow = coalescingWindow
        self.importFile = importFile
        self.seed = seed
        self.quiet = quiet
        self.checkpointEvery = checkpointEvery
        self.offlineAfter = offlineAfter
        self.maxBodyBytes = maxBodyBytes
        self.recover = recover
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.idleTimeout = idleTimeout
        self.maxConnections = maxConnections
        self.maxPollsPerDevice = maxPollsPerDevice
    }

    /// 1,000 connections, or fewer when the process may open fewer files
    /// (macOS allows 256 by default): 64 descriptors stay for the database and the listener.
    public static var defaultMaxConnections: Int {
        var limit = rlimit()
        #if os(Linux)
        let status = getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        #else
        let status = getrlimit(RLIMIT_NOFILE, &limit)
        #endif
        guard status == 0 else { return 1000 }
        let soft = Int(clamping: min(limit.rlim_cur, 1_000_000))
        return max(8, min(1000, soft - 64))
    }

    /// `$XDG_DATA_HOME/syncscope`, else `~/.local/share/syncscope`.
    public static var defaultDataDirectory: URL {
        let environment = ProcessInfo.processInfo.environment
        if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty {
            return URL(fileURLWithPath: xdg).appendingPathComponent("syncscope")
        }
        let home = environment["HOME"].map { URL(fileURLWithPath: $0) } ?? FileManager.default.homeDirectoryForCurrentUser
        return home.appendingPathComponent(".local/share/syncscope")
    }

    package var effectiveUsers: [String] { users.isEmpty ? ["alice", "bob"] : users }
}
