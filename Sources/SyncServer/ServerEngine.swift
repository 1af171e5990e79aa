import Foundation
import SyncCore

/// Who is asking: a user, and the device they ask from.
public struct Caller: Sendable, Hashable, CustomStringConvertible {
    public var user: String
    public var deviceID: String?

    public init(user: String, deviceID: String? = nil) {
        self.user = user
        self.deviceID = deviceID
    }

    public var description: String { deviceID.map { "\(user)/\($0)" } ?? user }
}

/// A user of the simulated server.
public struct UserAccount: Sendable, Hashable {
    public var name: String
    /// The secret a client sends as `ckWebAuthToken` (or `Authorization: Bearer`).
    public var webAuthToken: String
}

/// Tunable behaviour of the simulated server.
public struct ServerConfiguration: Sendable, Hashable {
    /// Keep this many changes of history per zone and per database log;
    /// tokens from before that expire. `nil`: keep everything until `compact`.
    public var retention: Int?
    /// Most items in one `records/modify` or `zones/modify` request.
    public var maxOperationsPerRequest: Int
    /// The cap, and default, of `resultsLimit`.
    public var maxResultsLimit: Int
    /// Seeds the server's random choices: token-signing key, incarnations, auth tokens.
    public var seed: UInt64

    public init(retention: Int? = nil, maxOperationsPerRequest: Int = 400, maxResultsLimit: Int = 400, seed: UInt64 = 1) {
        self.retention = retention
        self.maxOperationsPerRequest = maxOperationsPerRequest
        self.maxResultsLimit = maxResultsLimit
        self.seed = seed
    }
}

/// One record as it was before and after a commit.
public struct CommittedChange: Sendable {
    public var recordID: RecordID
    public var recordType: String
    /// `nil`: the record did not exist before.
    public var before: Record?
    /// `nil`: the record was deleted.
    public var after: Record?
}

/// What one successful `records/modify` changed, for subscriptions and the inspector.
public struct Commit: Sendable {
    public var container: String
    public var environment: ContainerEnvironment
    /// The database of the zone's owner (`.private` or `.public`).
    public var ownerScope: DatabaseScope
    public var zoneID: RecordZoneID
    /// Users who see this zone in their shared database.
    public var participants: Set<String>
    public var caller: Caller
    public var changes: [CommittedChange]
    public var time: Milliseconds
}

/// A zone appeared in or left one user's database: the database-level
/// change that database subscriptions watch besides record changes.
public struct DatabaseChangeEvent: Sendable, Hashable {
    public enum Change: Sendable, Hashable {
        /// The owner created the zone (private database).
        case zoneCreated
        /// The zone went away: deleted by the app, purged in Settings, or
        /// dropped by an encrypted-data reset. In a participant's shared
        /// database: the owner did one of those.
        case zoneDeleted(ZoneDeletionReason)
        /// The owner shared the zone with this user (shared database).
        case zoneShared
        /// The owner stopped sharing the zone with this user (shared database).
        case shareRevoked
    }

    public var container: String
    public var environment: ContainerEnvironment
    /// Whose database changed.
    public var user: String
    /// `.private` (the owner's) or `.shared` (a participant's).
    public var scope: DatabaseScope
    public var zoneID: RecordZoneID
    public var change: Change
    /// The device that made the change, which is not told about it; `nil` for
    /// what the user does in Settings (purge, encrypted-data reset), which
    /// every device of the user hears about, and in other users' databases.
    public var originatingDeviceID: String?
    public var time: Milliseconds
}

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

    func record(_ stored: StoredRecord, name: String, zoneID: RecordZoneID, desiredKeys: [String]? = nil) -> Record {
        Record(
            recordID: RecordID(recordName: name, zoneID: zoneID),
            recordType: names[stored.type],
            fields: stored.fields.filtered(to: desiredKeys),
            recordChangeTag: Self.tagString(stored.tag),
            created: stamp(stored.created),
            modified: stamp(stored.modified)
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

/// Name rules shared by users, zones, records and fields.
enum Validation {
    static func checkName(_ name: String, what: String, maxLength: Int = 255) throws(CloudError) {
        guard !name.isEmpty else { throw CloudError(.invalidArguments, "The \(what) is empty.") }
        guard name.utf8.count <= maxLength else {
            throw CloudError(.invalidArguments, "The \(what) '\(name.prefix(32))…' is longer than \(maxLength) bytes.")
        }
        guard !containsControlOrSlash(name) else {
            throw CloudError(.invalidArguments, "The \(what) '\(name)' contains a control character or '/'.")
        }
    }

    /// Whether a name has a control character or `/`. An ASCII name (the
    /// usual one) is judged by its bytes (ASCII's control characters are
    /// 0–31 and 127); only other names look up Unicode's categories.
    private static func containsControlOrSlash(_ name: String) -> Bool {
        var ascii = true
        for byte in name.utf8 {
            if byte >= 0x80 {
                ascii = false
                break
            }
            if byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "/") { return true }
        }
        if ascii { return false }
        return name.unicodeScalars.contains { $0.properties.generalCategory == .control || $0 == "/" }
    }

    /// Rejects values the wire cannot carry: a list item of another type than
    /// its list's, a list inside a list, a number that is not finite. Walks the
    /// value without allocating.
    static func checkFieldValue(_ value: FieldValue, field: String, recordName: String, zoneID: RecordZoneID) throws(CloudError) {
        func invalid(_ problem: String) -> CloudError {
            CloudError(.invalidArguments, "Field '\(field)' of record '\(recordName)': \(problem).", recordName: recordName, zoneID: zoneID)
        }
        func checkScalar(_ value: FieldValue) throws(CloudError) {
            switch value {
            case .double(let d) where !d.isFinite:
                throw invalid("the number \(d) is not finite; only finite numbers can be stored")
            case .location(let l) where !l.latitude.isFinite || !l.longitude.isFinite:
                throw invalid("the location (\(l.latitude), \(l.longitude)) is not finite; only finite coordinates can be stored")
            default:
                break
            }
        }
        guard case .list(let element, let items) = value else { return try checkScalar(value) }
        for (index, item) in items.enumerated() {
            if case .list = item { throw invalid("item \(index) is a list; a \(element.listName) cannot hold lists") }
            guard item.elementType == element else {
                throw invalid("item \(index) is \(item.typeName), but a \(element.listName) holds only \(element.rawValue) values")
            }
            try checkScalar(item)
        }
    }

    /// A record name as CKRecord.ID allows it: 1 to 255 ASCII characters, no
    /// control characters, not starting with an underscore (names starting
    /// with `_` are CloudKit's own); `/` is allowed.
    static func checkRecordName(_ name: String) throws(CloudError) {
        guard !name.isEmpty else { throw CloudError(.invalidArguments, "The record name is empty.") }
        guard name.utf8.count <= 255 else {
            throw CloudError(.invalidArguments, "The record name '\(name.prefix(32))…' is longer than 255 characters.", recordName: name)
        }
        // Printable ASCII (0x20...0x7E: ASCII less its controls), checked on
        // the bytes: every save passes here, and Unicode properties are slow.
        guard name.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
            throw CloudError(
                .invalidArguments, "The record name '\(name)' has a character that is not printable ASCII; record names are ASCII.",
                recordName: name)
        }
        guard !name.hasPrefix("_") else {
            throw CloudError(
                .invalidArguments, "The record name '\(name)' starts with an underscore, which CloudKit keeps for its own records.",
                recordName: name)
        }
    }

    static func checkFieldName(_ name: String) throws(CloudError) {
        let valid = !name.isEmpty && name.utf8.count <= 255
            // ASCII letters (the only alphabetic ASCII characters), digits and '_'.
            && name.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
            }
            && !name.hasPrefix("_")
            && !(name.unicodeScalars.first.map { ("0"..."9").contains($0) } ?? true)
        guard valid else {
            throw CloudError(
                .invalidArguments,
                "'\(name)' is not a valid field name: use ASCII letters, digits and '_', starting with a letter.")
        }
    }
}
