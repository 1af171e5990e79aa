import Foundation
import SyncCore
import SyncClient
import SyncServer
import Testing

/// Push-triggered fetching: notifications, came-online and manual requests
/// schedule fetch runs of the ``DeviceSyncEngine``.
@Suite struct PushFetchTests {
    let fixture = Fixture()
    let directory: TemporaryDirectory
    let zone = Fixture.zone("A")

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// alice's "phone", registered for push, with a database subscription on her private database.
    private func phone(kind: StoreKind = .memory, scopes: [DatabaseScope] = [.private, .shared]) async throws -> TestDevice {
        let device = try TestDevice(
            service: fixture.connect(device: "phone"), clock: fixture.clock, kind: kind, directory: directory,
            configuration: .init(scopes: scopes))
        try fixture.server.registerDevice(user: "alice", deviceID: "phone")
        try await device.service.subscribe([.database(DatabaseSubscription(subscriptionID: "private-changes"))])
        return device
    }

    /// A change made on alice's laptop (not registered: it is never skipped as the originator).
    private func laptopPut(_ names: [String], title: String = "t") throws {
        try fixture.server.putNow(names.map { Fixture.note($0, in: zone, ["title": .string(title)]) })
    }

    /// Everything on its way to the phone, delivered (the clock moves to each arrival).
    private func phoneNotifications() -> [CloudNotification] {
        fixture.server.deliverEverything(clock: fixture.clock).filter { $0.deviceID == "phone" }.map(\.notification)
    }

    private func cachedNames(_ device: TestDevice) throws -> [String] {
        try device.cached(zone).map(\.recordID.recordName)
    }

    private func scheduled(_ events: ArraySlice<SyncEvent>) -> [SyncEvent] {
        events.filter { if case .fetchScheduled = $0 { true } else { false } }
    }

    /// A phone that has fetched zone A holding `names`.
    private func syncedPhone(_ names: [String], kind: StoreKind = .memory) async throws -> TestDevice {
        let device = try await phone(kind: kind)
        try await fixture.server.connect(user: "alice", deviceID: "laptop").createZones([zone])
        try laptopPut(names)
        _ = phoneNotifications()
        try await device.engine.fetchChanges()
        return device
    }

    @Test(arguments: StoreKind.allCases)
    func notificationSchedulesOneFetchThatUsesCachedTokensAndFetchesTheChange(kind: StoreKind) async throws {
        let device = try await syncedPhone(["a1", "a2"], kind: kind)
        let databaseToken = try device.store.databaseToken(for: .private)
        #expect(databaseToken != nil)

        try laptopPut(["a3"])
        let notifications = phoneNotifications()
        try #require(notifications.count == 1)
        let id = notifications[0].notificationID
        let mark = device.events.events.count
        device.engine.notificationReceived(notifications[0])

        #expect(device.engine.isFetchScheduled)
        #expect(device.engine.fetchRuns.isEmpty)
        #expect(try cachedNames(device) == ["a1", "a2"], "receiving a notification must not fetch by itself")
        #expect(device.events.events[mark...].first == .notificationReceived(notificationID: id, subscriptionID: "private-changes", coalescedCount: 1))
        #expect(scheduled(device.events.events[mark...]) == [.fetchScheduled(reason: .push, notificationIDs: [id])])

        await device.engine.runScheduledFetches()
        #expect(!device.engine.isFetchScheduled)
        #expect(!device.engine.isFetching)
        #expect(try cachedNames(device) == ["a1", "a2", "a3"])
        let runs = device.engine.fetchRuns
        try #require(runs.count == 1)
        #expect(runs[0].id == 1)
        #expect(runs[0].reason == .push)
        #expect(runs[0].triggeredBy == [id])
        #expect(runs[0].succeeded == true)
        #expect(runs[0].changesApplied == 1)
        // From the cached tokens: the database fetch starts from the stored
        // token and the zone fetch returns only the new record, not all three.
        let after = device.events.events[mark...]
        #expect(after.contains(.fetchStarted(scope: .private, databaseToken: databaseToken)))
        let zoneReceipts = after.compactMap { event -> TokenReceipt? in
            if case .tokenReceived(let receipt) = event, receipt.kind == .recordZone { receipt } else { nil }
        }
        #expect(zoneReceipts.map(\.changeCount) == [1])

        // Nothing is scheduled any more: running again does nothing.
        await device.engine.runScheduledFetches()
        #expect(device.engine.fetchRuns.count == 1)
    }

    @Test func threeNotificationsBeforeRunningMakeOneRunTriggeredByAllThree() async throws {
        let device = try await syncedPhone(["a1"])
        var ids: [String] = []
        for name in ["b1", "b2", "b3"] {
            try laptopPut([name])
            for notification in phoneNotifications() {
                ids.append(notification.notificationID)
                device.engine.notificationReceived(notification)
            }
        }
        try #require(ids.count == 3)
        #expect(Set(ids).count == 3)
        #expect(scheduled(device.events.events[...]) == [.fetchScheduled(reason: .push, notificationIDs: [ids[0]])])

        await device.engine.runScheduledFetches()
        let runs = device.engine.fetchRuns
        try #require(runs.count == 1)
        #expect(runs[0].triggeredBy == ids)
        #expect(runs[0].changesApplied == 3)
        #expect(try cachedNames(device) == ["a1", "b1", "b2", "b3"])
    }

    @Test func notificationsArrivingWhileAFetchRunsMarkExactlyOneFollowUp() async throws {
        let device = try await syncedPhone(["a1"])
        try laptopPut(["a2"])
        let first = try #require(phoneNotifications().first)
        device.engine.notificationReceived(first)

        // While the run fetches zone A (after its zone token is stored), the
        // laptop makes three changes and their notifications arrive.
        var duringRun: [String] = []
        var followUpMarkedDuringRun = false
        device.events.onEvent = { [unowned device] event in
            guard duringRun.isEmpty, case .tokenReceived(let receipt) = event, receipt.kind == .recordZone else { return }
            for name in ["c1", "c2", "c3"] {
                try? self.laptopPut([name])
                for notification in self.phoneNotifications() {
                    duringRun.append(notification.notificationID)
                    #expect(device.engine.isFetching)
                    device.engine.notificationReceived(notification)
                    followUpMarkedDuringRun = device.engine.isFetchScheduled
                }
            }
        }
        await device.engine.runScheduledFetches()
        device.events.onEvent = nil

        #expect(followUpMarkedDuringRun)
        try #require(duringRun.count == 3)
        let runs = device.engine.fetchRuns
        try #require(runs.count == 2, "three notifications during a run must give one follow-up run, not one each")
        #expect(runs.map(\.id) == [1, 2])
        #expect(runs[0].triggeredBy == [first.notificationID])
        #expect(runs[1].reason == .push)
        #expect(runs[1].triggeredBy == duringRun)
        #expect(runs[1].changesApplied == 3)
        #expect(runs.allSatisfy { $0.succeeded == true })
        #expect(scheduled(device.events.events[...]).count == 2)
        #expect(try cachedNames(device) == ["a1", "a2", "c1", "c2", "c3"])
        #expect(!device.engine.isFetchScheduled)
    }

    @Test func runScheduledFetchesCalledDuringARunLeavesTheWorkToTheRunningCall() async throws {
        // The nested call comes from the service, between the database and zone fetches.
        let box = EngineBox()
        let base = try fixture.connect(device: "phone")
        let service = HookedService(base: base) {
            guard let engine = box.engine, box.nestedCalls == 0 else { return }
            box.nestedCalls += 1
            engine.cameOnline()
            await engine.runScheduledFetches()
            box.runsAfterNestedCall = engine.fetchRuns.count
        }
        let device = try TestDevice(service: service, clock: fixture.clock, directory: directory)
        box.engine = device.engine
        try fixture.server.registerDevice(user: "alice", deviceID: "phone")
        try await base.subscribe([.database(DatabaseSubscription(subscriptionID: "private-changes"))])
        try await base.createZones([zone])
        try laptopPut(["a1"])
        device.engine.notificationReceived(try #require(phoneNotifications().first))

        await device.engine.runScheduledFetches()
        #expect(box.nestedCalls == 1)
        #expect(box.runsAfterNestedCall == 1, "the nested call must not start a run of its own")
        // The came-online request made during the run became the one follow-up.
        #expect(device.engine.fetchRuns.map(\.reason) == [.push, .cameOnline])
        #expect(device.engine.fetchRuns.allSatisfy { $0.succeeded == true })
        #expect(try cachedNames(device) == ["a1"])
    }

    @Test func autoFetchOnPushOffRecordsTheNotificationButSchedulesNothing() async throws {
        let device = try await syncedPhone(["a1"])
        device.engine.autoFetchOnPush = false
        try laptopPut(["a2"])
        let notification = try #require(phoneNotifications().first)
        let mark = device.events.events.count
        device.engine.notificationReceived(notification)

        #expect(Array(device.events.events[mark...]) == [
            .notificationReceived(notificationID: notification.notificationID, subscriptionID: "private-changes", coalescedCount: 1)
        ])
        #expect(!device.engine.isFetchScheduled)
        await device.engine.runScheduledFetches()
        #expect(device.engine.fetchRuns.isEmpty)
        #expect(try cachedNames(device) == ["a1"])

        // A manual fetch still works, and is not credited to the notification.
        device.engine.scheduleFetch()
        await device.engine.runScheduledFetches()
        #expect(device.engine.fetchRuns.map(\.reason) == [.manual])
        #expect(device.engine.fetchRuns.first?.triggeredBy == [])
        #expect(try cachedNames(device) == ["a1", "a2"])
    }

    @Test(arguments: StoreKind.allCases)
    func cameOnlineSchedulesAFetchWithoutANotificationAndPicksUpChangesMadeWhileOffline(kind: StoreKind) async throws {
        let device = try await syncedPhone(["a1"], kind: kind)
        try fixture.server.setOnline("phone", false)
        try laptopPut(["b1"])
        fixture.clock.advance(by: 1_000)
        try laptopPut(["b2"])
        #expect(phoneNotifications().isEmpty, "an offline device receives nothing")

        // Back online; the push service's held notification is lost on the way.
        _ = try fixture.server.setOnline("phone", true)
        _ = phoneNotifications()
        let mark = device.events.events.count
        device.engine.cameOnline()
        #expect(scheduled(device.events.events[mark...]) == [.fetchScheduled(reason: .cameOnline, notificationIDs: [])])
        #expect(device.engine.isFetchScheduled)

        await device.engine.runScheduledFetches()
        let run = try #require(device.engine.fetchRuns.last)
        #expect(device.engine.fetchRuns.count == 1)
        #expect(run.reason == .cameOnline)
        #expect(run.triggeredBy.isEmpty)
        #expect(run.changesApplied == 2)
        #expect(try cachedNames(device) == ["a1", "b1", "b2"])
    }

    @Test func notificationContentIsNeverUsedAsData() async throws {
        let device = try await syncedPhone(["a1"])
        try await device.service.subscribe([.query(QuerySubscription(
            subscriptionID: "notes", recordType: "Note", options: [.firesOnRecordCreation, .firesOnRecordUpdate],
            notificationInfo: NotificationInfo(desiredKeys: ["title"])))])
        try laptopPut(["n1"], title: "first")
        let notifications = phoneNotifications()
        let query = try #require(notifications.compactMap { if case .query(let n) = $0 { n } else { nil } }.first)
        #expect(query.recordFields["title"] == .string("first"))
        // The record changes again before the phone fetches: the notification is stale.
        fixture.clock.advance(by: 1_000)
        try laptopPut(["n1"], title: "second")
        _ = phoneNotifications()

        // A pruned notification claiming fields for a record that does not exist.
        let forged = CloudNotification.query(QueryNotification(
            notificationID: "forged", subscriptionID: "notes", containerIdentifier: "iCloud.com.example.SyncScope",
            databaseScope: .private, queryNotificationReason: .recordCreated, recordID: Fixture.id("ghost", in: zone),
            recordFields: ["title": "forged"], isPruned: true, coalescedCount: 7))

        let before = try device.cached(zone)
        device.engine.notificationReceived(.query(query))
        device.engine.notificationReceived(forged)
        #expect(try device.cached(zone) == before, "receiving notifications must not change the cache")
        #expect(device.events.events.contains(
            .notificationReceived(notificationID: "forged", subscriptionID: "notes", coalescedCount: 7)))

        await device.engine.runScheduledFetches()
        #expect(device.engine.fetchRuns.map(\.triggeredBy) == [[query.notificationID, "forged"]])
        #expect(try cachedNames(device) == ["a1", "n1"])
        let n1 = try #require(try device.engine.record(Fixture.id("n1", in: zone)))
        let server = try await device.service.serverRecords(in: zone).first { $0.recordID.recordName == "n1" }
        #expect(n1["title"] == .string("second"))
        #expect(n1 == server)
    }

    @Test func runsRecordWhichNotificationsTriggeredThem() async throws {
        let device = try await syncedPhone(["a1"])
        let engine = device.engine
        func next(_ name: String) throws -> String {
            fixture.clock.advance(by: 1_000)
            try laptopPut([name])
            let notification = try #require(phoneNotifications().first)
            engine.notificationReceived(notification)
            return notification.notificationID
        }

        let n1 = try next("b1")
        await engine.runScheduledFetches()
        engine.scheduleFetch()
        await engine.runScheduledFetches()
        let n2 = try next("b2"), n3 = try next("b3")
        await engine.runScheduledFetches()
        // A notification joining a waiting came-online fetch is credited to it.
        engine.cameOnline()
        let n4 = try next("b4")
        await engine.runScheduledFetches()

        let runs = engine.fetchRuns
        #expect(runs.map(\.id) == [1, 2, 3, 4])
        #expect(runs.map(\.reason) == [.push, .manual, .push, .cameOnline])
        #expect(runs.map(\.triggeredBy) == [[n1], [], [n2, n3], [n4]])
        #expect(runs.map(\.changesApplied) == [1, 0, 2, 1])
        #expect(runs.allSatisfy { run in run.succeeded == true && run.finishedAt.map { $0 >= run.startedAt } == true })
        // The events carry the same runs: started without an outcome, finished with it.
        let started = device.events.events.compactMap { if case .fetchRunStarted(let run) = $0 { run } else { nil } }
        let finished = device.events.events.compactMap { if case .fetchRunFinished(let run) = $0 { run } else { nil } }
        #expect(finished == runs)
        #expect(started.map(\.id) == [1, 2, 3, 4])
        #expect(started.allSatisfy { $0.finishedAt == nil && $0.succeeded == nil })
        #expect(zip(started, runs).allSatisfy { $0.triggeredBy == $1.triggeredBy && $0.startedAt == $1.startedAt })
    }

    @Test func aFailingFetchBecomesAFailedRunNotAThrow() async throws {
        let device = try await phone(scopes: [.public])
        device.engine.scheduleFetch()
        await device.engine.runScheduledFetches()
        let run = try #require(device.engine.fetchRuns.first)
        #expect(run.succeeded == false)
        #expect(run.errorMessage?.contains("public database does not support change fetching") == true)
        #expect(device.events.events.last == .fetchRunFinished(run))
        #expect(!device.engine.isFetching)
    }
}

/// Lets a service hook reach the engine it serves (the same task runs both).
private final class EngineBox: @unchecked Sendable {
    var engine: DeviceSyncEngine?
    var nestedCalls = 0
    var runsAfterNestedCall: Int?
}
