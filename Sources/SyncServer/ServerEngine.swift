import Foundation
import SyncCore

/// The simulated CloudKit server: plain, synchronous and deterministic.
///
/// It holds every container, user, database, zone and record; it signs and
/// checks change tokens; and it answers the operations of the HTTP API.
/// It is not thread-safe: wrap it (``SimulatedServer`` does) to share it.
public final class ServerEngine {
    public let configuration: ServerConfiguration
    public let clock: any SyncClock

    var random: SeededRandom
    var signer: TokenSigner
    /// Changes when the whole state is replaced, so older tokens expire.
    var historyID: UInt64
    var accounts: [String: UserAccount] = [:]
    var containers: [ContainerKey: ContainerState] = [:]
    var names = NameTable()
    var nextChangeTag: UInt64 = 1
    /// Uploaded asset files by checksum (see `storeAsset`).
    var assets: [String: Data] = [:]
    /// Records about to be saved into zones, known up front (a journal's
    /// replay counts them): a zone makes room for them at its first save, so
    /// its tables never regrow on the way (see `expectRecords`). Not state.
    var expectedRecords: [RecordZoneID: Int] = [:]
    /// Paged `records/query` snapshots (see `queryRecords`); not state: never exported or journaled.
    var querySnapshots = QuerySnapshots()
    /// Keys the incarnations of databases and zones that come into being on
    /// first use, so they depend on names and the seed, never on which request
    /// happened to touch them first (a replayed journal gives the same tokens).
    var incarnationKey: UInt64
    /// Called after each successful commit of records.
    public var commitObservers: [(Commit) -> Void] = []
    /// Called after each zone-level change of a user's database (zone created,
    /// deleted, purged, reset, shared in or revoked), once per affected database.
    public var databaseChangeObservers: [(DatabaseChangeEvent) -> Void] = []

    struct ContainerKey: Hashable {
        var container: String
        var environment: ContainerEnvironment
    }

    public init(configuration: ServerConfiguration = ServerConfiguration(), clock: any SyncClock = VirtualClock()) {
        self.configuration = configuration
        self.clock = clock
        var random = SeededRandom(seed: configuration.seed)
        signer = TokenSigner(keyBytes: random.bytes(32))
        historyID = random.next()
        incarnationKey = random.next()
        self.random = random
    }

    /// A stable incarnation for a database or zone made on first use.
    func derivedIncarnation(_ parts: String...) -> UInt64 {
        var hash: UInt64 = incarnationKey ^ 0xCBF2_9CE4_8422_2325
        for part in parts {
            for byte in part.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
            hash = (hash ^ 0xFF) &* 0x0000_0100_0000_01B3
        }
        var mixer = SeededRandom(seed: hash)
        return mixer.next()
    }

    // MARK: Users

    /// Adds a user (or returns the existing one).
    @discardableResult
    public func addUser(_ name: String) throws(CloudError) -> UserAccount {
        if let existing = accounts[name] { return existing }
        try Validation.checkName(name, what: "user name")
        let token = TokenSigner.base64URL(random.bytes(24))
        let account = UserAccount(name: name, webAuthToken: token)
        accounts[name] = account
        return account
    }

    public var users: [UserAccount] { accounts.values.sorted { $0.name < $1.name } }

    public func account(named name: String) -> UserAccount? { accounts[name] }

    public func user(withWebAuthToken token: String) -> UserAccount? {
        accounts.values.first { $0.webAuthToken == token }
    }

    /// Throws `authenticationFailed` unless the caller is a user of this server.
    public func checkCaller(_ caller: Caller) throws(CloudError) {
        guard accounts[caller.user] != nil else {
            throw CloudError(.authenticationFailed, "There is no user named '\(caller.user)' on this server.")
        }
    }

    // MARK: Containers and databases

    func containerState(_ database: DatabaseID) -> ContainerState {
        let key = ContainerKey(container: database.container, environment: database.environment)
        if let state = containers[key] { return state }
        let state = ContainerState(
            publicZoneIncarnation: derivedIncarnation("public", database.container, database.environment.rawValue))
        containers[key] = state
        return state
    }

    func databases(of user: String, in database: DatabaseID) -> UserDatabases {
        let container = containerState(database)
        if let dbs = container.users[user] { return dbs }
        let place = [database.container, database.environment.rawValue, user]
        let dbs = UserDatabases(
            user: user,
            privateIncarnation: derivedIncarnation("private", place[0], place[1], place[2]),
            sharedIncarnation: derivedIncarnation("shared", place[0], place[1], place[2]),
            defaultZoneIncarnation: derivedIncarnation("default-zone", place[0], place[1], place[2])
        )
        container.users[user] = dbs
        return dbs
    }

    /// The zone ID with `ownerName` filled in: empty or `__defaultOwner__`
    /// mean the caller; the public database has one owner.
    func normalize(_ zoneID: RecordZoneID, caller: Caller, scope: DatabaseScope) -> RecordZoneID {
        if scope == .public { return RecordZoneID(zoneName: zoneID.zoneName, ownerName: RecordZoneID.publicOwnerName) }
        if zoneID.ownerName.isEmpty || zoneID.ownerName == RecordZoneID.currentUserName {
            return RecordZoneID(zoneName: zoneID.zoneName, ownerName: caller.user)
        }
        return zoneID
    }

    /// Finds the zone a caller asks for, or explains why they cannot have it.
    func zone(_ zoneID: RecordZoneID, for caller: Caller, in database: DatabaseID) throws(CloudError) -> ZoneState {
        switch database.scope {
        case .public:
            guard zoneID.isDefaultZone else {
                throw CloudError(
                    .zoneNotFound, "The public database has only the default zone (_defaultZone); '\(zoneID.zoneName)' does not exist there.",
                    zoneID: zoneID)
            }
            return containerState(database).publicZone
        case .private:
            guard zoneID.ownerName == caller.user else {
                throw CloudError(
                    .permissionFailure,
                    "Zone '\(zoneID.zoneName)' belongs to \(zoneID.ownerName); your private database holds only your own zones (zones shared with you are in the shared database).",
                    zoneID: zoneID)
            }
            let dbs = databases(of: caller.user, in: database)
            if let zone = dbs.privateZones[zoneID.zoneName] { return zone }
            throw missingZoneError(zoneID, reason: dbs.removedZoneReasons[zoneID.zoneName])
        case .shared:
            guard zoneID.ownerName != caller.user else {
                throw CloudError(
                    .invalidArguments,
                    "Zone '\(zoneID.zoneName)' is your own; your zones live in your private database, the shared database holds zones other users share with you.",
                    zoneID: zoneID)
            }
            guard !zoneID.isDefaultZone else {
                throw CloudError(.invalidArguments, "The shared database has no default zone.", zoneID: zoneID)
            }
            let dbs = databases(of: caller.user, in: database)
            guard dbs.sharedZones.contains(zoneID),
                  let zone = databases(of: zoneID.ownerName, in: database).privateZones[zoneID.zoneName]
            else {
                throw CloudError(
                    .zoneNotFound, "No zone '\(zoneID.zoneName)' owned by \(zoneID.ownerName) is shared with you.", zoneID: zoneID)
            }
            return zone
        }
    }

    func missingZoneError(_ zoneID: RecordZoneID, reason: ZoneDeletionReason?) -> CloudError {
        switch reason {
        case .purged:
            CloudError(
                .userDeletedZone,
                "Zone '\(zoneID.zoneName)' was purged: the user deleted this app's data in Settings. Do not upload it again unless the user asks.",
                zoneID: zoneID)
        case .encryptedDataReset:
            CloudError(
                .zoneNotFound,
                "Zone '\(zoneID.zoneName)' was deleted when the user reset their encrypted data; create it again and re-upload local data.",
                zoneID: zoneID)
        case .deleted, nil:
            CloudError(.zoneNotFound, "Zone '\(zoneID.zoneName)' does not exist in this database.", zoneID: zoneID)
        }
    }

    // MARK: Record conversion

    /// A stored record of `zone` as the model has it, with its parent and
    /// the share it is the root of (read only in a zone that has any).
    func record(_ stored: StoredRecord, name: String, zone: ZoneState, desiredKeys: [String]? = nil) -> Record {
        var record = record(stored, name: name, zoneID: zone.zoneID, desiredKeys: desiredKeys)
        zone.links?.apply(to: &record)
        return record
    }

    /// The same with the `parent` and `share` the caller names (none by
    /// default): for a run of records of one zone, whose ``ZoneState/links``
    /// the caller reads once for the run and applies to each
    /// (``ZoneState/Links/apply(to:)``), and for a save's answer, whose plan
    /// knows them. Kept this small so it is inlined where a run converts
    /// records one by one (a full fetch).
    @inline(__always)
    func record(
        _ stored: StoredRecord, name: String, zoneID: RecordZoneID, desiredKeys: [String]? = nil, parent: String? = nil, share: String? = nil
    ) -> Record {
        Record(
            recordID: RecordID(recordName: name, zoneID: zoneID),
            recordType: names[stored.type],
            fields: stored.fields.filtered(to: desiredKeys),
            recordChangeTag: Self.tagString(stored.tag),
            created: stamp(stored.created),
            modified: stamp(stored.modified),
            parent: parent.map { RecordReference(recordName: $0) },
            share: share.map { RecordReference(recordName: $0) }
        )
    }

    func stamp(_ s: Stamp) -> RecordStamp {
        RecordStamp(timestamp: s.time, userRecordName: names[s.user], deviceID: s.device == 0 ? nil : names[s.device])
    }

    static func tagString(_ tag: UInt64) -> String { String(tag, radix: 36) }

    // MARK: Retention

    func applyRetention(to zone: ZoneState) {
        guard let keep = configuration.retention else { return }
        zone.compact(through: zone.log.lastSequence - Int64(keep))
    }

    func applyRetention(to log: inout DatabaseLog) {
        guard let keep = configuration.retention else { return }
        log.compact(through: log.log.lastSequence - Int64(keep))
    }
}
