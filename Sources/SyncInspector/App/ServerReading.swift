import SyncCore
import SyncClient
import SyncWorlds

/// What the server said for one device at one read, through the world's
/// `ServerObserver`: the same questions for an in-process server and for
/// one over HTTP. `SnapshotBuilder` turns it, with the device's own state,
/// into the panes' rows.
public struct ServerReading: Sendable, Equatable {
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

    /// What the records pane's ``RecordRowsModel`` asked of the server for
    /// the selected zone (the changes since its position, or everything), and
    /// the answers.
    public struct RecordRowsReading: Sendable, Equatable {
        public var source: RecordRowsModel.Source
        /// The answer to each read asked: the model's, and after a refused
        /// position (history compacted, zone reset) the full read as well.
        public var answers: [RecordRowsRead: RecordRowsServerAnswer]

        public init(source: RecordRowsModel.Source, answers: [RecordRowsRead: RecordRowsServerAnswer]) {
            self.source = source
            self.answers = answers
        }
    }

    /// What a fetch from the selected token would return now.
    public struct RewindReading: Sendable, Equatable {
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
    /// What the records pane's model needed of the selected zone (`nil`:
    /// nothing changed there since it last looked).
    public var records: RecordRowsReading?
    public var rewind: RewindReading?
    /// Notifications on their way to the device, or held for it.
    public var pendingNotifications: [PendingNotification] = []
    public var pushFaultMarks: [PushFaultMark] = []
    public var faultRules: [String] = []
    /// The container's schema in each environment the observer can read
    /// (record types, fields, indexes; the record detail shows them and
    /// whether production would take the record).
    public var schemas: [ContainerEnvironment: ContainerSchema] = [:]

    public init() {}
}

extension ServerReading {
    /// The most changes a rewind shows.
    static let rewindLimit = 50

    /// Asks `observer` what the panes show for `device`, in the device's
    /// environment (a production device sees production's data): its user's zones and
    /// how each cached token stands, what `recordRows` needs of `zone` (the
    /// changes since it last looked, or nothing when the zone did not change), what
    /// a fetch from `receipt`'s token would return, and notifications on their way.
    static func read(
        _ observer: any ServerObserver, device: SyncDevice, zone: ZoneKey?, rewind receipt: TokenReceipt?, recordRows: RecordRowsModel
    ) async throws(CloudError) -> ServerReading {
        do {
            return try await readOrThrow(observer, device: device, zone: zone, rewind: receipt, recordRows: recordRows)
        } catch let error as CloudError {
            throw error
        } catch {
            throw CloudError(.internalError, "\(error)")
        }
    }

    private static func readOrThrow(
        _ observer: any ServerObserver, device: SyncDevice, zone: ZoneKey?, rewind receipt: TokenReceipt?, recordRows: RecordRowsModel
    ) async throws -> ServerReading {
        let (user, environment) = (device.user, device.environment)
        var next = ServerReading()
        next.zones = try await observer.zoneSummaries(user: user, environment: environment)
        next.removed = try await observer.removedZones(user: user, environment: environment)
        next.publicZone = try await observer.publicZoneSummary(environment: environment)
        for summary in next.zones where !summary.zoneID.isDefaultZone {
            if let current = summary.currentToken, let position = await observer.position(of: current) {
                next.positions[current] = position
            }
            guard let token = device.cachedZoneToken(for: summary.zoneID) else { continue }
            if let position = await observer.position(of: token) { next.positions[token] = position }
            let key = TokenKey(scope: summary.scope, zoneID: summary.zoneID, token: token)
            if let pending = try await observer.pendingChangeCount(
                since: token, zoneID: summary.zoneID, scope: summary.scope, user: user, environment: environment) {
                next.pending[key] = pending
            } else {
                next.problems[key] = try await observer.validate(
                    token, zoneID: summary.zoneID, scope: summary.scope, user: user, environment: environment)
                    ?? CloudError(.invalidArguments, "The server does not accept this token.")
            }
        }
        if let zone, let summary = (next.zones + [next.publicZone].compactMap { $0 }).first(where: {
            $0.scope == zone.scope && $0.zoneID == zone.zoneID
        }), summary.recordCount != nil {
            // MARK: Records pane (RecordRowsModel)
            let source = RecordRowsModel.Source(zone: zone, device: device.name)
            let mark = RecordRowsModel.ServerMark(
                token: summary.currentToken, lastSequence: summary.lastSequence, recordCount: summary.recordCount)
            let deviceToken = summary.zoneID.isDefaultZone ? nil : device.cachedZoneToken(for: summary.zoneID)
            if let read = recordRows.serverRead(for: source, mark: mark, deviceToken: deviceToken) {
                var answers = [read: try await observer.answer(read, zone: zone, user: user, environment: environment)]
                if case .refused? = answers[read], read != .everything {
                    answers[.everything] = try await observer.answer(.everything, zone: zone, user: user, environment: environment)
                }
                next.records = RecordRowsReading(source: source, answers: answers)
            }
        }
        if let receipt {
            next.rewind = RewindReading(
                receipt: receipt, meaning: await observer.describe(receipt.token),
                result: try await observer.rewind(
                    from: receipt.token, zoneID: receipt.zoneID, scope: receipt.scope, user: user, environment: environment,
                    resultsLimit: rewindLimit))
        }
        next.pendingNotifications = await observer.pendingNotifications(forDevice: device.deviceID)
        next.pushFaultMarks = await observer.pushFaultMarks(forDevice: device.deviceID)
        next.faultRules = await observer.faultRules()
        for environment in ContainerEnvironment.allCases {
            if let schema = await observer.schema(in: environment) { next.schemas[environment] = schema }
        }
        return next
    }
}
