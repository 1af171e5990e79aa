import SyncCore
import SyncServer
import SyncSimulation

/// What the server said for one device at one read, through the world's
/// ``ServerObserver``: the same questions for an in-process server and for
/// one over HTTP. ``SnapshotBuilder`` turns it, with the device's own state,
/// into the panes' rows.
public struct ServerReading: Sendable {
    /// A device's cached token for a zone.
    public struct TokenKey: Hashable, Sendable {
        public var scope: DatabaseScope
        public var zoneID: RecordZoneID
        public var token: ServerChangeToken

        public init(scope: DatabaseScope, zoneID: RecordZoneID, token: ServerChangeToken) {
            self.scope = scope
            self.zoneID = zoneID
            self.token = token
        }
    }

    /// The records of one zone, as the server had them at `lastSequence`.
    public struct ZoneRecords: Sendable {
        public var zone: ZoneKey
        public var lastSequence: Int64?
        public var recordCount: Int?
        public var records: [Record]
        /// Changes when the records read differ from the previous read's.
        public var version: Int
    }

    /// What a fetch from the selected token would return now.
    public struct RewindReading: Sendable {
        public var receipt: TokenReceipt
        /// The server's words for what the token stands for.
        public var meaning: String
        public var result: Result<TokenRewind, CloudError>
    }

    public var zones: [ServerZoneSummary] = []
    public var removed: [ServerRemovedZone] = []
    public var publicZone: ServerZoneSummary?
    /// How many changes a fetch from each of the device's cached zone tokens would bring…
    public var pending: [TokenKey: Int] = [:]
    /// …or why the server would refuse it.
    public var problems: [TokenKey: CloudError] = [:]
    /// The change each token stands through, where the observer can read tokens.
    public var positions: [ServerChangeToken: Int64] = [:]
    /// The selected zone's records.
    public var records: ZoneRecords?
    public var rewind: RewindReading?
    /// Notifications on their way to the device, or held for it.
    public var pendingNotifications: [PendingNotification] = []
    public var pushFaultMarks: [PushFaultMark] = []
    public var faultRules: [String] = []

    public init() {}
}

extension ServerReading {
    /// The most changes a rewind shows.
    static let rewindLimit = 50

    /// Asks `observer` what the panes show for `device`: its user's zones and
    /// how each cached token stands, the records of `zone` (read again only
    /// when the zone changed, or always when the observer cannot tell), what
    /// a fetch from `receipt`'s token would return, and notifications on their way.
    static func read(
        _ observer: any ServerObserver, device: SimulatedDevice, zone: ZoneKey?, rewind receipt: TokenReceipt?, previous: ServerReading
    ) async throws(CloudError) -> ServerReading {
        do {
            return try await readOrThrow(observer, device: device, zone: zone, rewind: receipt, previous: previous)
        } catch let error as CloudError {
            throw error
        } catch {
            throw CloudError(.internalError, "\(error)")
        }
    }

    private static func readOrThrow(
        _ observer: any ServerObserver, device: SimulatedDevice, zone: ZoneKey?, rewind receipt: TokenReceipt?, previous: ServerReading
    ) async throws -> ServerReading {
        let user = device.user
        var next = ServerReading()
        next.zones = try await observer.zoneSummaries(user: user)
        next.removed = try await observer.removedZones(user: user)
        next.publicZone = try await observer.publicZoneSummary()
        for summary in next.zones where !summary.zoneID.isDefaultZone {
            if let current = summary.currentToken, let position = await observer.position(of: current) {
                next.positions[current] = position
            }
            guard let token = device.cachedZoneToken(for: summary.zoneID) else { continue }
            if let position = await observer.position(of: token) { next.positions[token] = position }
            let key = TokenKey(scope: summary.scope, zoneID: summary.zoneID, token: token)
            if let pending = try await observer.pendingChangeCount(since: token, zoneID: summary.zoneID, scope: summary.scope, user: user) {
                next.pending[key] = pending
            } else {
                next.problems[key] = try await observer.validate(token, zoneID: summary.zoneID, scope: summary.scope, user: user)
                    ?? CloudError(.invalidArguments, "The server does not accept this token.")
            }
        }
        if let zone, let summary = (next.zones + [next.publicZone].compactMap { $0 }).first(where: {
            $0.scope == zone.scope && $0.zoneID == zone.zoneID
        }), summary.recordCount != nil {
            let old = previous.records
            if let old, old.zone == zone, old.lastSequence != nil, old.lastSequence == summary.lastSequence,
               old.recordCount == summary.recordCount {
                next.records = old  // nothing changed in the zone: no read
            } else {
                let records = try await observer.records(in: zone.zoneID, scope: zone.scope, user: user)
                let same = old.map { $0.zone == zone && $0.records == records } ?? false
                next.records = ZoneRecords(
                    zone: zone, lastSequence: summary.lastSequence, recordCount: summary.recordCount, records: records,
                    version: same ? old!.version : (old?.version ?? 0) + 1)
            }
        }
        if let receipt {
            next.rewind = RewindReading(
                receipt: receipt, meaning: await observer.describe(receipt.token),
                result: try await observer.rewind(
                    from: receipt.token, zoneID: receipt.zoneID, scope: receipt.scope, user: user, resultsLimit: rewindLimit))
        }
        next.pendingNotifications = await observer.pendingNotifications(forDevice: device.deviceID)
        next.pushFaultMarks = await observer.pushFaultMarks(forDevice: device.deviceID)
        next.faultRules = await observer.faultRules()
        return next
    }
}
