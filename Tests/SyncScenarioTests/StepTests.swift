import Foundation
import SyncCore
import Testing
@testable import SyncScenario

@Suite("Every step kind")
struct StepTests {
    @Test func sayKeepsMultiLineTextWithoutTheTrailingNewline() throws {
        let steps = try kinds("""
              - say: |
                  Two lines
                  of narrative.
              - say: One line.
            """)
        #expect(steps == [.say("Two lines\nof narrative."), .say("One line.")])
    }

    @Test func zoneStepsNameDeviceZoneAndDatabase() throws {
        let steps = try kinds("""
              - deleteZone: {device: iPhone, zone: Notes}
              - purgeZone: {device: Mac, zone: Notes, database: private}
              - deleteZone: {device: Pixel, zone: Notes@alice, database: shared}
              - encryptedDataReset: iPhone
              - encryptedDataReset: {device: Mac}
            """)
        #expect(steps == [
            .deleteZone(ZoneAction(device: "iPhone", zone: ZoneRef("Notes"))),
            .purgeZone(ZoneAction(device: "Mac", zone: ZoneRef("Notes"))),
            .deleteZone(ZoneAction(device: "Pixel", database: .shared, zone: ZoneRef("Notes", ownerName: "alice"))),
            .encryptedDataReset(device: "iPhone"),
            .encryptedDataReset(device: "Mac"),
        ])
    }

    @Test func zonesCanNameTheirOwnerInLongForm() throws {
        let step = try kind("  - purgeZone: {device: Pixel, database: shared, zone: {name: Notes, owner: alice}}\n")
        #expect(step == .purgeZone(ZoneAction(device: "Pixel", database: .shared, zone: ZoneRef("Notes", ownerName: "alice"))))
        #expect(ZoneRef("Notes").zoneID(defaultOwner: "bob") == RecordZoneID(zoneName: "Notes", ownerName: "bob"))
        #expect(ZoneRef("Notes", ownerName: "alice").zoneID(defaultOwner: "bob") == RecordZoneID(zoneName: "Notes", ownerName: "alice"))
    }

    @Test func sharingNamesParticipants() throws {
        let steps = try kinds("""
              - shareZone: {device: iPhone, zone: Notes, participants: [bob]}
              - revokeShare: {device: iPhone, zone: Notes, participants: bob}
            """)
        #expect(steps == [
            .shareZone(ShareAction(device: "iPhone", zone: ZoneRef("Notes"), participants: ["bob"])),
            .revokeShare(ShareAction(device: "iPhone", zone: ZoneRef("Notes"), participants: ["bob"])),
        ])
    }

    @Test func saveReadsFieldsRemovalsAndSavePolicy() throws {
        let step = try kind("""
              - save:
                  device: Mac
                  zone: Notes
                  record: note-1
                  fields: {title: "Groceries, again", pinned: true, body: null}
                  savePolicy: changedKeys
            """)
        #expect(step == .save(SaveAction(
            device: "Mac", zone: ZoneRef("Notes"), recordName: "note-1", recordType: nil,
            fields: ["title": .string("Groceries, again"), "pinned": .int64(1)], removedFields: ["body"],
            savePolicy: .changedKeys)))
    }

    @Test func deleteAndSendNameTheDevice() throws {
        let steps = try kinds("""
              - delete: {device: iPhone, zone: Notes, record: note-1}
              - send: iPhone
              - send: {device: Mac}
            """)
        #expect(steps == [
            .delete(DeleteAction(device: "iPhone", zone: ZoneRef("Notes"), recordName: "note-1")),
            .send(device: "iPhone"),
            .send(device: "Mac"),
        ])
    }

    @Test func fetchWithoutAZoneFetchesDatabaseChangesWithTheCachedToken() throws {
        let step = try kind("  - fetch: {device: Mac, database: shared}\n")
        #expect(step == .fetch(FetchAction(device: "Mac", database: .shared, target: .databaseChanges, token: .cached)))
    }

    @Test func fetchWithOnlyADeviceIsTheShortForm() throws {
        #expect(try kind("  - fetch: Mac\n") == .fetch(FetchAction(device: "Mac", target: .databaseChanges)))
    }

    @Test func fetchReadsEveryOption() throws {
        let steps = try kinds("""
              - createZone: {device: iPhone, zone: Trips}
              - fetch: {device: Mac, zones: [Notes, Trips], token: ~, resultsLimit: 5, fetchAllChanges: false, desiredKeys: [title], capture: before}
              - fetch: {device: Mac, zone: Notes, token: before, desiredKeys: []}
              - fetch: {device: Mac, zone: Notes, token: null}
              - fetch: {device: Mac, zone: Notes, token: cached}
            """)
        #expect(steps.dropFirst().map { $0 } == [
            .fetch(FetchAction(
                device: "Mac", target: .zoneChanges([ZoneRef("Notes"), ZoneRef("Trips")]), token: .noToken, resultsLimit: 5,
                fetchAllChanges: false, desiredKeys: ["title"], capture: "before")),
            .fetch(FetchAction(device: "Mac", target: .zoneChanges([ZoneRef("Notes")]), token: .captured("before"), desiredKeys: [])),
            .fetch(FetchAction(device: "Mac", target: .zoneChanges([ZoneRef("Notes")]), token: .noToken)),
            .fetch(FetchAction(device: "Mac", target: .zoneChanges([ZoneRef("Notes")]), token: .cached)),
        ])
    }

    @Test func syncOnlineOfflineAndAdvance() throws {
        let steps = try kinds("""
              - sync: Mac
              - offline: Mac
              - advance: 2s
              - online: {device: Mac}
              - advance: 1m30s
            """)
        #expect(steps == [
            .sync(device: "Mac"), .offline(device: "Mac"), .advance(milliseconds: 2_000), .online(device: "Mac"),
            .advance(milliseconds: 90_000),
        ])
    }

    @Test func subscribeReadsAQuerySubscriptionInFull() throws {
        let step = try kind("""
              - subscribe:
                  device: Mac
                  subscriptionID: open-notes
                  type: query
                  zone: Notes
                  recordType: Note
                  predicate:
                    - {field: done, comparator: EQUALS, value: false}
                    - {field: title, comparator: BEGINS_WITH, value: Gro}
                    - {field: priority, comparator: IN, value: [1, 2]}
                  firesOn: [update, create]
                  firesOnce: true
                  notificationInfo: {alertBody: "Changed", shouldSendContentAvailable: true, desiredKeys: [title], collapseIDKey: notes}
            """)
        #expect(step == .subscribe(SubscriptionSetup(
            owner: .device("Mac"), subscriptionID: "open-notes", type: .query, zone: ZoneRef("Notes"), recordType: "Note",
            predicate: QueryPredicate([
                QueryFilter("done", .equals, .int64(0)),
                QueryFilter("title", .beginsWith, .string("Gro")),
                QueryFilter("priority", .in, .list(.int64, [.int64(1), .int64(2)])),
            ]),
            options: [.firesOnRecordCreation, .firesOnRecordUpdate, .firesOnce],
            notificationInfo: .init(alertBody: "Changed", shouldSendContentAvailable: true, desiredKeys: ["title"], collapseIDKey: "notes"))))
    }

    @Test func subscribeAndUnsubscribeByUser() throws {
        let steps = try kinds("""
              - subscribe: {user: bob, subscriptionID: shared-db, type: database, database: shared}
              - subscribe: {user: alice, subscriptionID: notes, type: zone, zone: Notes}
              - unsubscribe: {user: bob, subscriptionID: shared-db, database: shared}
              - unsubscribe: {device: Mac, subscriptionID: notes}
            """)
        #expect(steps == [
            .subscribe(SubscriptionSetup(owner: .user("bob"), subscriptionID: "shared-db", type: .database, database: .shared)),
            .subscribe(SubscriptionSetup(owner: .user("alice"), subscriptionID: "notes", type: .recordZone, zone: ZoneRef("Notes"))),
            .unsubscribe(UnsubscribeAction(owner: .user("bob"), subscriptionID: "shared-db", database: .shared)),
            .unsubscribe(UnsubscribeAction(owner: .device("Mac"), subscriptionID: "notes")),
        ])
    }

    @Test func subscriptionTypeRecordZoneIsAcceptedForZoneAndFiresOnceFalseSetsNoOption() throws {
        let steps = try kinds("""
              - subscribe: {user: alice, subscriptionID: notes, type: recordZone, zone: Notes}
              - subscribe: {user: alice, subscriptionID: q, type: query, recordType: Note, firesOn: [delete, delete], firesOnce: false}
            """)
        #expect(steps == [
            .subscribe(SubscriptionSetup(owner: .user("alice"), subscriptionID: "notes", type: .recordZone, zone: ZoneRef("Notes"))),
            .subscribe(SubscriptionSetup(
                owner: .user("alice"), subscriptionID: "q", type: .query, recordType: "Note", options: .firesOnRecordDeletion)),
        ])
    }

    @Test func unknownFiresOnEventNamesTheScenarioSpellings() {
        #expect(stepProblems("""
              - subscribe: {user: alice, subscriptionID: q, type: query, recordType: Note, firesOn: [insert]}
            """) == ["steps.yaml:8:90: error: unknown firesOn event 'insert'; use create, update or delete"])
    }

    @Test func aSetupBecomesTheSubscriptionTheServerStoresWithItsZoneResolved() throws {
        let zoneID = RecordZoneID(zoneName: "Notes", ownerName: "alice")
        let step = try kind("""
              - subscribe: {user: alice, subscriptionID: q, type: query, zone: Notes, recordType: Note, firesOn: [create], firesOnce: true, predicate: [{field: done, comparator: EQUALS, value: 0}], notificationInfo: {shouldSendContentAvailable: true}}
            """)
        guard case .subscribe(let setup)? = step else {
            Issue.record("not a subscribe step: \(String(describing: step))")
            return
        }
        #expect(try setup.subscription(zoneID: zoneID) == .query(QuerySubscription(
            subscriptionID: "q", recordType: "Note", predicate: QueryPredicate([QueryFilter("done", .equals, .int64(0))]), zoneID: zoneID,
            options: [.firesOnRecordCreation, .firesOnce], notificationInfo: NotificationInfo(shouldSendContentAvailable: true))))
        let zone = SubscriptionSetup(owner: .user("alice"), subscriptionID: "z", type: .recordZone, zone: ZoneRef("Notes"))
        #expect(try zone.subscription(zoneID: zoneID) == .recordZone(RecordZoneSubscription(subscriptionID: "z", zoneID: zoneID)))
        #expect(throws: CloudError.self) { try zone.subscription(zoneID: nil) }
    }

    @Test func compactDefaultsToEverythingAndKeepingNothing() throws {
        let steps = try kinds("""
              - compact: {user: alice}
              - compact: {device: iPhone, zone: Notes, keepLast: 3}
              - compact: {user: bob, database: shared}
            """)
        #expect(steps == [
            .compact(CompactAction(principal: .user("alice"))),
            .compact(CompactAction(principal: .device("iPhone"), database: .private, zone: ZoneRef("Notes"), keepLast: 3)),
            .compact(CompactAction(principal: .user("bob"), database: .shared)),
        ])
    }

    @Test func burstDescribesNumberedRecords() throws {
        let step = try kind("""
              - burst: {device: iPhone, zone: Notes, count: 3, type: Note, fields: {title: "Note {n}", tags: ["t{n}"]}, send: end, every: 250ms}
            """)
        guard case .burst(let burst) = step else {
            Issue.record("expected a burst, got \(String(describing: step))")
            return
        }
        #expect(burst == BurstAction(
            device: "iPhone", zone: ZoneRef("Notes"), count: 3, recordType: "Note", recordNamePrefix: "note-",
            fields: ["title": .string("Note {n}"), "tags": .list(.string, [.string("t{n}")])], send: .end, intervalMs: 250))
        #expect(burst.recordName(2) == "note-2")
        #expect(burst.fields(2) == ["title": .string("Note 2"), "tags": .list(.string, [.string("t2")])])
    }

    @Test func burstDefaults() throws {
        let step = try kind("  - burst: {device: iPhone, zone: Notes, count: 2, prefix: w}\n")
        #expect(step == .burst(BurstAction(
            device: "iPhone", zone: ZoneRef("Notes"), count: 2, recordType: "Item", recordNamePrefix: "w", send: .each)))
    }

    @Test func principalsResolveToTheirUser() throws {
        let scenario = try ScenarioParser.parse(yaml: prelude, fileName: "p.yaml")
        #expect(scenario.userName(of: .device("Pixel")) == "bob")
        #expect(scenario.userName(of: .user("alice")) == "alice")
        #expect(scenario.userName(of: .device("Nokia")) == nil)
        #expect(scenario.userName(of: .user("carol")) == nil)
        #expect(scenario.device(named: "Mac") == DeviceSetup(name: "Mac", user: "alice"))
    }

    @Test func stepsReportTheirDevice() throws {
        let steps = try kinds("""
              - say: hi
              - subscribe: {device: Mac, subscriptionID: s, type: database}
              - compact: {user: alice}
              - send: iPhone
            """)
        #expect(steps.map(\.device) == [nil, "Mac", nil, "iPhone"])
        #expect(steps.map(\.name) == ["say", "subscribe", "compact", "send"])
    }
}

@Suite("Every expectation")
struct ExpectationTests {
    @Test func cacheChecksRecordsFieldsAndCounts() throws {
        let steps = try kinds("""
              - sync: Mac
              - expect:
                  cache:
                    device: Mac
                    zone: Notes
                    records: [note-1, {record: note-2, type: Note, fields: {title: Trip, stars: 4}}]
                    includes: [note-1]
                    excludes: [note-9]
                    count: 2
            """)
        #expect(steps.last == .expect(.cache(CacheExpectation(
            device: "Mac", zone: ZoneRef("Notes"),
            records: [ExpectedRecord("note-1"), ExpectedRecord("note-2", recordType: "Note", fields: ["title": .string("Trip"), "stars": .int64(4)])],
            includes: [ExpectedRecord("note-1")], excludes: ["note-9"], count: 2))))
    }

    @Test func anEmptyRecordListMeansNoRecords() throws {
        let steps = try kinds("  - expect: {cache: {device: Mac, zone: Notes, records: []}}\n")
        #expect(steps == [.expect(.cache(CacheExpectation(device: "Mac", zone: ZoneRef("Notes"), records: [])))])
    }

    @Test func lastFetchChecksEveryPart() throws {
        let steps = try kinds("""
              - fetch: {device: Pixel, database: shared}
              - expect:
                  lastFetch:
                    device: Pixel
                    records: [note-1]
                    deletions: [note-4]
                    zones: [Notes@alice]
                    deletedZones: [Old, {zone: Trips, reason: purged}]
                    moreComing: true
                    tokenChanged: false
            """)
        #expect(steps.last == .expect(.lastFetch(LastFetchExpectation(
            device: "Pixel", records: [ExpectedRecord("note-1")], deletions: ["note-4"],
            zones: [ZoneRef("Notes", ownerName: "alice")],
            deletedZones: [ExpectedDeletedZone(ZoneRef("Old")), ExpectedDeletedZone(ZoneRef("Trips"), reason: .purged)],
            moreComing: true, tokenChanged: false))))
    }

    @Test func lastFetchChecksBatchesAndDeletionsWithTheirTypes() throws {
        let step = try kinds("""
              - fetch: {device: Mac, zone: Notes}
              - expect: {lastFetch: {deletions: [note-1, {record: note-2, type: Note}], batches: 3}}
            """).last
        #expect(step == .expect(.lastFetch(LastFetchExpectation(
            deletions: ["note-1", ExpectedDeletion("note-2", recordType: "Note")], batches: 3))))
    }

    @Test func sendCanLeaveConflictsUnmerged() throws {
        let steps = try kinds("""
              - send: {device: Mac, mergeConflicts: false}
              - send: {device: Mac, mergeConflicts: true}
              - send: Mac
            """)
        #expect(steps == [
            .send(device: "Mac", mergeConflicts: false),
            .send(device: "Mac", mergeConflicts: true),
            .send(device: "Mac", mergeConflicts: true),
        ])
        #expect(steps.first?.device == "Mac")
    }

    @Test func fetchCanBeInterruptedAfterSomeBatches() throws {
        let step = try kind("  - fetch: {device: Mac, zone: Notes, token: nil, resultsLimit: 2, interruptAfter: 2}\n")
        #expect(step == .fetch(FetchAction(
            device: "Mac", target: .zoneChanges([ZoneRef("Notes")]), token: .noToken, resultsLimit: 2, interruptAfter: 2)))
    }

    @Test func lastSendPendingAndSubscriptionsChecksReadEveryPart() throws {
        let steps = try kinds("""
              - send: Mac
              - expect: {lastSend: {device: Mac, saved: [a, b], deleted: [], conflicts: [a]}}
              - expect: {lastSend: {conflicts: []}}
              - expect: {pending: {device: Mac, count: 2, records: [a]}}
              - expect: {subscriptions: {user: bob, database: shared, ids: []}}
              - expect: {subscriptions: {device: Mac, ids: [notes, open-notes]}}
            """)
        #expect(Array(steps.dropFirst()) == [
            .expect(.lastSend(LastSendExpectation(device: "Mac", saved: ["a", "b"], deleted: [], conflicts: ["a"]))),
            .expect(.lastSend(LastSendExpectation(conflicts: []))),
            .expect(.pending(PendingExpectation(device: "Mac", count: 2, records: ["a"]))),
            .expect(.subscriptions(SubscriptionsExpectation(owner: .user("bob"), database: .shared, ids: []))),
            .expect(.subscriptions(SubscriptionsExpectation(owner: .device("Mac"), ids: ["notes", "open-notes"]))),
        ])
    }

    @Test func notificationsCheckQueryReasonsInLongOrShortForm() throws {
        let step = try kind("  - expect: {notifications: {device: Mac, type: query, reasons: [recordCreated, updated, delete]}}\n")
        #expect(step == .expect(.notifications(NotificationsExpectation(
            device: "Mac", type: .query, reasons: [.recordCreated, .recordUpdated, .recordDeleted]))))
    }

    @Test func errorAcceptsCodesWireCodesNoneAndReasons() throws {
        let steps = try kinds("""
              - send: iPhone
              - expect: {error: changeTokenExpired}
              - expect: {error: CHANGE_TOKEN_EXPIRED}
              - expect: {error: BAD_REQUEST}
              - expect: {error: none}
              - expect: {error: {code: zoneNotFound, reasonContains: "Notes"}}
            """)
        #expect(steps.dropFirst().map { $0 } == [
            .expect(.error(ErrorExpectation(.code(.changeTokenExpired)))),
            .expect(.error(ErrorExpectation(.serverErrorCode("CHANGE_TOKEN_EXPIRED")))),
            .expect(.error(ErrorExpectation(.serverErrorCode("BAD_REQUEST")))),
            .expect(.error(ErrorExpectation(.noError))),
            .expect(.error(ErrorExpectation(.code(.zoneNotFound), reasonContains: "Notes"))),
        ])
    }

    @Test func notificationsChecksCountsAndType() throws {
        let steps = try kinds("""
              - expect: {notifications: {device: Mac, count: 1, coalescedCount: 3, type: zone, subscriptionID: notes}}
              - expect: {notifications: {device: Mac, type: query}}
            """)
        #expect(steps == [
            .expect(.notifications(NotificationsExpectation(device: "Mac", count: 1, coalescedCount: 3, type: .recordZone, subscriptionID: "notes"))),
            .expect(.notifications(NotificationsExpectation(device: "Mac", type: .query))),
        ])
    }

    @Test func tokensChecksCachedTokensAndCapturedOnes() throws {
        let steps = try kinds("""
              - fetch: {device: Mac, capture: db}
              - expect: {tokens: {device: Mac, sameAs: db}}
              - expect: {tokens: {device: Mac, zone: Notes, cached: false}}
              - expect: {tokens: {device: Pixel, database: shared}}
            """)
        #expect(steps.dropFirst().map { $0 } == [
            .expect(.tokens(TokenExpectation(device: "Mac", cached: true, sameAs: "db"))),
            .expect(.tokens(TokenExpectation(device: "Mac", zone: ZoneRef("Notes"), cached: false))),
            .expect(.tokens(TokenExpectation(device: "Pixel", database: .shared))),
        ])
    }

    @Test func oneExpectWithSeveralChecksGivesOneStepEachAtItsKey() throws {
        let scenario = try ScenarioParser.parse(yaml: prelude + """
              - sync: Mac
              - expect:
                  lastFetch: {moreComing: false}
                  tokens: {device: Mac, zone: Notes}
              - expect:
                  - {cache: {device: Mac, zone: Notes, count: 0}}
            """, fileName: "s.yaml")
        let checks = scenario.steps.suffix(3)
        #expect(checks.map(\.kind.name) == ["lastFetch", "tokens", "cache"])
        #expect(checks.map(\.location.description) == ["s.yaml:10:7", "s.yaml:11:7", "s.yaml:13:10"])
    }
}
