import Foundation
import SyncCore

/// Everything a scenario step can do.
///
/// Steps run one after another. A step that fails with a `CloudError`
/// fails the run, unless an ``Expectation/error(_:)`` check comes after it
/// before the next step that does something (``isAction``); that check then
/// examines the error.
public enum StepKind: Sendable, Equatable {
    /// Narrative for the reader; does nothing.
    case say(String)
    /// A question for the room, with its choices and answer; does nothing.
    case ask(AskAction)

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
    /// The zone's owner saves a zone-wide `CKShare` (`cloudkit.zoneshare`)
    /// inviting participants, each with a permission; participants left out are removed.
    case saveShare(ZoneShareAction)
    /// An invitee looks the share up by its URL (`records/resolve`): who
    /// owns it, and their own place in it (`PENDING` until they accept).
    case resolveShare(ZoneShareAction)
    /// An invitee accepts the share (`records/accept`): the zone appears in their shared database.
    case acceptShare(ZoneShareAction)
    /// The owner removes participants from the share: the zone leaves their shared database.
    case removeParticipant(ZoneShareAction)

    // MARK: Records

    /// The device saves a record locally; ``send(device:mergeConflicts:)`` or ``sync(device:)``
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

    // MARK: Schemas

    /// The team deploys the development schema to production (the CloudKit
    /// Console's "Deploy Schema Changes"); refused when production would lose a type or field.
    case deploySchema
    /// The team imports a schema text into one environment (`cktool import-schema`).
    case importSchema(SchemaImportAction)
    /// The device's app runs a `records/query` in one zone.
    case query(QueryAction)
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
        case .ask: "ask"
        case .createZone: "createZone"
        case .deleteZone: "deleteZone"
        case .purgeZone: "purgeZone"
        case .encryptedDataReset: "encryptedDataReset"
        case .shareZone: "shareZone"
        case .revokeShare: "revokeShare"
        case .saveShare: "saveShare"
        case .resolveShare: "resolveShare"
        case .acceptShare: "acceptShare"
        case .removeParticipant: "removeParticipant"
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
        case .deploySchema: "deploySchema"
        case .importSchema: "importSchema"
        case .query: "query"
        case .expect(let expectation): expectation.name
        }
    }

    /// The device that performs the step, if one does.
    public var device: String? {
        switch self {
        case .say, .ask, .advance, .expect, .fault, .clearFaults, .deploySchema, .importSchema: nil
        case .createZone(let a), .deleteZone(let a), .purgeZone(let a): a.device
        case .shareZone(let a), .revokeShare(let a): a.device
        case .saveShare(let a), .resolveShare(let a), .acceptShare(let a), .removeParticipant(let a): a.device
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
        case .query(let a): a.device
        }
    }

    /// Whether the step does something a later `expect: {error: …}` can check
    /// (everything except `say` and `expect`).
    public var isAction: Bool {
        switch self {
        case .say, .ask, .expect: false
        default: true
        }
    }
}
