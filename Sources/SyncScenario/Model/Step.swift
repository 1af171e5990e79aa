import Foundation
import SyncCore

/// One step of a scenario and where the file writes it.
public struct Step: Sendable, Equatable {
    public var kind: StepKind
    /// The step's name in the file (`fetch`, `expect`'s `cache`, …): where a
    /// runner points when the step fails.
    public var location: SourceLocation

    public init(_ kind: StepKind, at location: SourceLocation) {
        self.kind = kind
        self.location = location
    }
}

/// Everything a scenario step can do.
///
/// Steps run one after another. A step that fails with a `CloudError`
/// fails the run, unless an ``Expectation/error(_:)`` check comes after it
/// before the next step that does something (``isAction``); that check then
/// examines the error.
public enum StepKind: Sendable, Equatable {
    /// Narrative for the reader; does nothing.
    case say(String)

    // MARK: Zones

    /// The device creates a zone in its user's private database (`zones/modify`).
    case createZone(ZoneAction)
    /// The device deletes a zone (`zones/modify`); in the shared database,
    /// a participant leaves the share.
    case deleteZone(ZoneAction)
    /// The user deletes the app's data in a zone from Settings (reason `purged`).
    case purgeZone(ZoneAction)
    /// The device's user resets their encrypted data: every private custom zone goes.
    case encryptedDataReset(device: String)
    /// The zone's owner shares it with other users (a zone-wide share).
    case shareZone(ShareAction)
    /// The zone's owner stops sharing it with some users.
    case revokeShare(ShareAction)

    // MARK: Records

    /// The device saves a record locally; ``send(device:)`` or ``sync(device:)``
    /// uploads it.
    case save(SaveAction)
    /// The device deletes a record locally; uploaded like a save.
    case delete(DeleteAction)
    /// The device uploads its pending saves and deletions. On a conflict
    /// (`serverRecordChanged`) the device merges its changed fields into the
    /// server's record and sends again; with `mergeConflicts: false` it does
    /// not, and the step fails with `serverRecordChanged`, the change still queued.
    case send(device: String, mergeConflicts: Bool = true)

    // MARK: Fetching

    /// The device fetches database changes or zone changes.
    case fetch(FetchAction)
    /// The device's full sync: send pending changes, then fetch database
    /// changes and the changes of every changed zone, with its cached tokens.
    case sync(device: String)

    // MARK: Subscriptions and push

    case subscribe(SubscriptionSetup)
    case unsubscribe(UnsubscribeAction)
    /// The device comes back online: waiting notifications are delivered.
    case online(device: String)
    /// The device goes offline: the push service keeps only its latest notification.
    case offline(device: String)

    // MARK: Time and history

    /// The virtual clock moves forward; pushes due by then are delivered.
    case advance(milliseconds: Milliseconds)
    /// The server forgets history: tokens from before the last `keepLast`
    /// changes expire (`changeTokenExpired`).
    case compact(CompactAction)
    /// A writer: one device saves many records to one zone.
    case burst(BurstAction)

    // MARK: Client mistakes and accounts

    /// The app sends its pending record changes itself, with
    /// `records/modify` requests (no zone created first, no error handled).
    case modifyRecords(ModifyRecordsAction)
    /// Another iCloud account signs in on the device; its cache stays.
    case signIn(SignInAction)
    /// The app asks who is signed in (the user record name) and, when it is
    /// not the user its cache belongs to, deletes the cache: tokens,
    /// records and pending changes.
    case checkAccount(device: String)
    // MARK: Faults

    /// Fault rules go into force from now (`fault:`).
    case fault(FaultPlan)
    /// Fault rules stop: every one, or those of these kinds (`clearFaults:`).
    case clearFaults([FaultKind])

    // MARK: Checks

    case expect(Expectation)

    /// The step's name as the file writes it (`expect` steps give the
    /// expectation's name, for example `lastFetch`).
    public var name: String {
        switch self {
        case .say: "say"
        case .createZone: "createZone"
        case .deleteZone: "deleteZone"
        case .purgeZone: "purgeZone"
        case .encryptedDataReset: "encryptedDataReset"
        case .shareZone: "shareZone"
        case .revokeShare: "revokeShare"
        case .save: "save"
        case .delete: "delete"
        case .send: "send"
        case .fetch: "fetch"
        case .sync: "sync"
        case .subscribe: "subscribe"
        case .unsubscribe: "unsubscribe"
        case .online: "online"
        case .offline: "offline"
        case .advance: "advance"
        case .compact: "compact"
        case .burst: "burst"
        case .modifyRecords: "modifyRecords"
        case .signIn: "signIn"
        case .checkAccount: "checkAccount"
        case .fault: "fault"
        case .clearFaults: "clearFaults"
        case .expect(let expectation): expectation.name
        }
    }

    /// The device that performs the step, if one does.
    public var device: String? {
        switch self {
        case .say, .advance, .expect, .fault, .clearFaults: nil
        case .createZone(let a), .deleteZone(let a), .purgeZone(let a): a.device
        case .shareZone(let a), .revokeShare(let a): a.device
        case .encryptedDataReset(let d), .sync(let d), .online(let d), .offline(let d): d
        case .send(let d, _): d
        case .save(let a): a.device
        case .delete(let a): a.device
        case .fetch(let a): a.device
        case .subscribe(let s): s.owner.device
        case .unsubscribe(let a): a.owner.device
        case .compact(let a): a.principal.device
        case .burst(let a): a.device
        case .modifyRecords(let a): a.device
        case .signIn(let a): a.device
        case .checkAccount(let d): d
        }
    }

    /// Whether the step does something a later `expect: {error: …}` can check
    /// (everything except `say` and `expect`).
    public var isAction: Bool {
        switch self {
        case .say, .expect: false
        default: true
        }
    }
}

extension Principal {
    /// The device, when a device acts.
    public var device: String? {
        if case .device(let name) = self { name } else { nil }
    }
}

/// A zone operation by a device.
public struct ZoneAction: Sendable, Equatable {
    public var device: String
    public var database: DatabaseScope
    public var zone: ZoneRef

    public init(device: String, database: DatabaseScope = .private, zone: ZoneRef) {
        self.device = device
        self.database = database
        self.zone = zone
    }
}

/// Sharing a private zone with other users, or stopping.
public struct ShareAction: Sendable, Equatable {
    public var device: String
    public var zone: ZoneRef
    /// User names.
    public var participants: [String]

    public init(device: String, zone: ZoneRef, participants: [String]) {
        self.device = device
        self.zone = zone
        self.participants = participants
    }
}

/// A record save, kept by the device until it sends.
public struct SaveAction: Sendable, Equatable {
    public var device: String
    public var database: DatabaseScope
    public var zone: ZoneRef
    public var recordName: String
    /// `nil`: the type of the record the device already has (a new record needs one).
    public var recordType: String?
    /// Fields to set; other fields keep their values.
    public var fields: RecordFields
    /// Fields to remove (written as `name: null`), sorted.
    public var removedFields: [String]
    public var savePolicy: RecordSavePolicy

    public init(
        device: String, database: DatabaseScope = .private, zone: ZoneRef, recordName: String,
        recordType: String? = nil, fields: RecordFields = RecordFields(), removedFields: [String] = [],
        savePolicy: RecordSavePolicy = .ifServerRecordUnchanged
    ) {
        self.device = device
        self.database = database
        self.zone = zone
        self.recordName = recordName
        self.recordType = recordType
        self.fields = fields
        self.removedFields = removedFields
        self.savePolicy = savePolicy
    }
}

/// A record deletion, kept by the device until it sends.
public struct DeleteAction: Sendable, Equatable {
    public var device: String
    public var database: DatabaseScope
    public var zone: ZoneRef
    public var recordName: String

    public init(device: String, database: DatabaseScope = .private, zone: ZoneRef, recordName: String) {
        self.device = device
        self.database = database
        self.zone = zone
        self.recordName = recordName
    }
}

/// Which change token a fetch starts from.
public enum TokenChoice: Sendable, Hashable {
    /// The token the device cached after its last fetch of the same kind
    /// (none the first time).
    case cached
    /// No token: everything (written `nil`, `null` or `~`).
    case noToken
    /// A token remembered earlier with `capture:`. When the name holds
    /// tokens of several zones, a zone fetch uses the one of its own zone,
    /// or the only one there is.
    case captured(String)
}

/// A fetch of database changes (`CKFetchDatabaseChangesOperation`) or of
/// zone changes (`CKFetchRecordZoneChangesOperation`).
public struct FetchAction: Sendable, Equatable {
    public enum Target: Sendable, Equatable {
        /// `changes/database`: which zones changed.
        case databaseChanges
        /// `changes/zone`: what changed in these zones.
        case zoneChanges([ZoneRef])
    }

    public var device: String
    public var database: DatabaseScope
    public var target: Target
    public var token: TokenChoice
    /// Most entries per batch; `nil`: the server's limit.
    public var resultsLimit: Int?
    /// Keep fetching while the server says `moreComing` (caching each
    /// batch's token); `false`: one batch only.
    public var fetchAllChanges: Bool
    /// Fields to fetch; `nil`: all, `[]`: none. Zone changes only.
    public var desiredKeys: [String]?
    /// Remember the final token (one per zone for zone changes) under this name.
    public var capture: String?
    /// Stop after this many batches, as if the app were killed there: the
    /// batches before are stored with their tokens, and the step ends
    /// without an error. `nil`: fetch to the end.
    public var interruptAfter: Int?
    /// Kill the app while it stores one of the batches (see ``FetchCrash``).
    public var crash: FetchCrash?

    public init(
        device: String, database: DatabaseScope = .private, target: Target, token: TokenChoice = .cached,
        resultsLimit: Int? = nil, fetchAllChanges: Bool = true, desiredKeys: [String]? = nil, capture: String? = nil,
        interruptAfter: Int? = nil, crash: FetchCrash? = nil
    ) {
        self.device = device
        self.database = database
        self.target = target
        self.token = token
        self.resultsLimit = resultsLimit
        self.fetchAllChanges = fetchAllChanges
        self.desiredKeys = desiredKeys
        self.capture = capture
        self.interruptAfter = interruptAfter
        self.crash = crash
    }
}

/// Deleting a subscription.
public struct UnsubscribeAction: Sendable, Equatable {
    public var owner: Principal
    public var subscriptionID: String
    public var database: DatabaseScope

    public init(owner: Principal, subscriptionID: String, database: DatabaseScope = .private) {
        self.owner = owner
        self.subscriptionID = subscriptionID
        self.database = database
    }
}

/// Moving the server's retention horizon forward.
public struct CompactAction: Sendable, Equatable {
    public var principal: Principal
    /// `nil`: every database of the user.
    public var database: DatabaseScope?
    /// `nil`: every log (the database's and each zone's).
    public var zone: ZoneRef?
    /// Changes of history kept; 0 expires every token issued so far.
    public var keepLast: Int

    public init(principal: Principal, database: DatabaseScope? = nil, zone: ZoneRef? = nil, keepLast: Int = 0) {
        self.principal = principal
        self.database = database
        self.zone = zone
        self.keepLast = keepLast
    }
}

/// A writer: `count` saves by one device to one zone.
public struct BurstAction: Sendable, Equatable {
    /// When the burst's saves go to the server.
    public enum SendMode: String, Sendable, Equatable, CaseIterable {
        /// Each save is sent on its own: `count` commits.
        case each
        /// All saves are sent together at the end: one commit.
        case end
        /// Nothing is sent: the saves stay pending.
        case none
    }

    public var device: String
    public var database: DatabaseScope
    public var zone: ZoneRef
    public var count: Int
    public var recordType: String
    /// Record names are this prefix and the save's number, from 1.
    public var recordNamePrefix: String
    /// Fields of every record; `{n}` in a string becomes the save's number.
    public var fields: RecordFields
    public var send: SendMode
    /// Clock advance after each save.
    public var intervalMs: Milliseconds

    public init(
        device: String, database: DatabaseScope = .private, zone: ZoneRef, count: Int, recordType: String = "Item",
        recordNamePrefix: String? = nil, fields: RecordFields = RecordFields(), send: SendMode = .each,
        intervalMs: Milliseconds = 0
    ) {
        self.device = device
        self.database = database
        self.zone = zone
        self.count = count
        self.recordType = recordType
        self.recordNamePrefix = recordNamePrefix ?? BurstAction.defaultPrefix(for: recordType)
        self.fields = fields
        self.send = send
        self.intervalMs = intervalMs
    }

    /// `Item` → `item-`.
    public static func defaultPrefix(for recordType: String) -> String {
        recordType.lowercased() + "-"
    }

    /// The record name of save number `number` (1 …`count`).
    public func recordName(_ number: Int) -> String {
        "\(recordNamePrefix)\(number)"
    }

    /// The fields of save number `number`, with `{n}` replaced in strings.
    public func fields(_ number: Int) -> RecordFields {
        func substitute(_ value: FieldValue) -> FieldValue {
            switch value {
            case .string(let s): .string(s.replacingOccurrences(of: "{n}", with: String(number)))
            case .list(let type, let items): .list(type, items.map(substitute))
            default: value
            }
        }
        return RecordFields(fields.map { Field(name: $0.name, value: substitute($0.value)) })
    }
}
