import SyncCore

/// A check a scenario makes between steps. A check that does not hold
/// fails the run at the expectation's location.
public enum Expectation: Sendable, Equatable {
    /// What a device has in its local cache.
    case cache(CacheExpectation)
    /// What the most recent fetch (or sync) answered.
    case lastFetch(LastFetchExpectation)
    /// How the latest step that did something (not `say`, not another
    /// check) ended: with this error, or with none.
    case error(ErrorExpectation)
    /// Which notifications a device received.
    case notifications(NotificationsExpectation)
    /// Whether a device caches a change token.
    case tokens(TokenExpectation)
    /// What the most recent `send` (or `sync`) sent, and which saves conflicted.
    case lastSend(LastSendExpectation)
    /// The local changes a device has queued and not yet sent.
    case pending(PendingExpectation)
    /// The subscriptions a user has in one database on the server.
    case subscriptions(SubscriptionsExpectation)
    /// The retries a device's sync engine made, and how long it waited (see `FaultSetup.swift`).
    case retries(RetriesExpectation)

    /// The name the file uses for this check.
    public var name: String {
        switch self {
        case .cache: "cache"
        case .lastFetch: "lastFetch"
        case .error: "error"
        case .notifications: "notifications"
        case .tokens: "tokens"
        case .lastSend: "lastSend"
        case .pending: "pending"
        case .subscriptions: "subscriptions"
        case .retries: "retries"
        }
    }
}

/// A record a check expects; only the fields named are compared.
public struct ExpectedRecord: Sendable, Equatable {
    public var recordName: String
    /// `nil`: any type.
    public var recordType: String?
    /// Fields that must have these values; other fields are not checked.
    public var fields: RecordFields

    public init(_ recordName: String, recordType: String? = nil, fields: RecordFields = RecordFields()) {
        self.recordName = recordName
        self.recordType = recordType
        self.fields = fields
    }
}

/// Checks a device's cache of one zone.
public struct CacheExpectation: Sendable, Equatable {
    public var device: String
    public var database: DatabaseScope
    public var zone: ZoneRef
    /// Exactly these records (in any order), and no others.
    public var records: [ExpectedRecord]?
    /// At least these records.
    public var includes: [ExpectedRecord]
    /// None of these record names.
    public var excludes: [String]
    /// This many records.
    public var count: Int?

    public init(
        device: String, database: DatabaseScope = .private, zone: ZoneRef, records: [ExpectedRecord]? = nil,
        includes: [ExpectedRecord] = [], excludes: [String] = [], count: Int? = nil
    ) {
        self.device = device
        self.database = database
        self.zone = zone
        self.records = records
        self.includes = includes
        self.excludes = excludes
        self.count = count
    }
}

/// A zone a database-changes answer reports as removed.
public struct ExpectedDeletedZone: Sendable, Equatable {
    public var zone: ZoneRef
    /// `nil`: any reason.
    public var reason: ZoneDeletionReason?

    public init(_ zone: ZoneRef, reason: ZoneDeletionReason? = nil) {
        self.zone = zone
        self.reason = reason
    }
}

/// A deletion a zone fetch reports: the record's name and, when the check
/// names one, its record type.
public struct ExpectedDeletion: Sendable, Equatable, ExpressibleByStringLiteral, CustomStringConvertible {
    public var recordName: String
    /// `nil`: any type.
    public var recordType: String?

    public init(_ recordName: String, recordType: String? = nil) {
        self.recordName = recordName
        self.recordType = recordType
    }

    public init(stringLiteral value: String) {
        self.init(value)
    }

    public var description: String {
        recordType.map { "\(recordName) (\($0))" } ?? recordName
    }
}

/// Checks the answer of the latest `fetch` or `sync` (all its batches
/// together when it fetched all changes). Every part is optional.
public struct LastFetchExpectation: Sendable, Equatable {
    /// `nil`: whichever device fetched last.
    public var device: String?
    /// The changed records, in the order the server sent them.
    public var records: [ExpectedRecord]?
    /// The records reported deleted, in order (with their record types,
    /// when the check gives them).
    public var deletions: [ExpectedDeletion]?
    /// Database changes: the zones reported changed, in order.
    public var zones: [ZoneRef]?
    /// Database changes: the zones reported removed, in order.
    public var deletedZones: [ExpectedDeletedZone]?
    /// The last batch's `moreComing`.
    public var moreComing: Bool?
    /// Whether the device's cached token differs from the one it had before
    /// the fetch (for a zone fetch: the token of any fetched zone).
    public var tokenChanged: Bool?
    /// How many batches (server responses) the fetch received, in all.
    public var batches: Int?

    public init(
        device: String? = nil, records: [ExpectedRecord]? = nil, deletions: [ExpectedDeletion]? = nil, zones: [ZoneRef]? = nil,
        deletedZones: [ExpectedDeletedZone]? = nil, moreComing: Bool? = nil, tokenChanged: Bool? = nil, batches: Int? = nil
    ) {
        self.device = device
        self.records = records
        self.deletions = deletions
        self.zones = zones
        self.deletedZones = deletedZones
        self.moreComing = moreComing
        self.tokenChanged = tokenChanged
        self.batches = batches
    }
}

/// Which error the latest step that did something ended with.
public struct ErrorExpectation: Sendable, Equatable {
    public enum Match: Sendable, Equatable {
        /// The step succeeded.
        case noError
        /// A `CloudError.Code`, written as its raw value (`changeTokenExpired`).
        case code(CloudError.Code)
        /// A wire `serverErrorCode` (`CHANGE_TOKEN_EXPIRED`, `BAD_REQUEST`).
        case serverErrorCode(String)
    }

    public var match: Match
    /// Text the error's reason must contain.
    public var reasonContains: String?

    public init(_ match: Match, reasonContains: String? = nil) {
        self.match = match
        self.reasonContains = reasonContains
    }
}

/// Checks the notifications a device received since its previous
/// `notifications` check (or since the start).
public struct NotificationsExpectation: Sendable, Equatable {
    /// The kinds of notification, as `notificationType` spells them.
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        case database
        case recordZone
        case query
    }

    public var device: String
    /// How many notifications were delivered.
    public var count: Int?
    /// The `coalescedCount` of the latest one.
    public var coalescedCount: Int?
    /// The type every one of them has.
    public var type: Kind?
    /// The subscription every one of them comes from.
    public var subscriptionID: String?
    /// Query notifications: why each fired, in the order they arrived.
    public var reasons: [QueryNotification.Reason]?

    public init(
        device: String, count: Int? = nil, coalescedCount: Int? = nil, type: Kind? = nil, subscriptionID: String? = nil,
        reasons: [QueryNotification.Reason]? = nil
    ) {
        self.device = device
        self.count = count
        self.coalescedCount = coalescedCount
        self.type = type
        self.subscriptionID = subscriptionID
        self.reasons = reasons
    }
}

/// Checks whether a device caches a token for a database (no zone) or a zone.
public struct TokenExpectation: Sendable, Equatable {
    public var device: String
    public var database: DatabaseScope
    /// `nil`: the database-changes token.
    public var zone: ZoneRef?
    /// Whether a token is cached at all.
    public var cached: Bool
    /// The cached token is the one remembered under this name.
    public var sameAs: String?

    public init(device: String, database: DatabaseScope = .private, zone: ZoneRef? = nil, cached: Bool = true, sameAs: String? = nil) {
        self.device = device
        self.database = database
        self.zone = zone
        self.cached = cached
        self.sameAs = sameAs
    }
}

/// Checks the latest `send` or `sync` (or that of `device`): what reached
/// the server, and which saves met a newer server record. Every part is optional.
public struct LastSendExpectation: Sendable, Equatable {
    /// `nil`: whichever device sent last.
    public var device: String?
    /// The records the server saved, in any order.
    public var saved: [String]?
    /// The records the server deleted, in any order.
    public var deleted: [String]?
    /// The records whose save failed with `serverRecordChanged` (and were
    /// merged into the server's record and sent again, unless the send was
    /// told not to merge), in any order.
    public var conflicts: [String]?

    public init(device: String? = nil, saved: [String]? = nil, deleted: [String]? = nil, conflicts: [String]? = nil) {
        self.device = device
        self.saved = saved
        self.deleted = deleted
        self.conflicts = conflicts
    }
}

/// Checks the local changes a device has queued and not sent yet.
public struct PendingExpectation: Sendable, Equatable {
    public var device: String
    /// How many changes are queued (records and zones).
    public var count: Int?
    /// Exactly the records with a queued save or deletion, in any order.
    public var records: [String]?

    public init(device: String, count: Int? = nil, records: [String]? = nil) {
        self.device = device
        self.count = count
        self.records = records
    }
}

/// Checks which subscriptions a user (or a device's user) has in one database.
public struct SubscriptionsExpectation: Sendable, Equatable {
    public var owner: Principal
    public var database: DatabaseScope
    /// Exactly these subscription IDs, in any order.
    public var ids: [String]

    public init(owner: Principal, database: DatabaseScope = .private, ids: [String]) {
        self.owner = owner
        self.database = database
        self.ids = ids
    }
}
