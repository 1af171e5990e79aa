import Foundation
import SyncCore
import SyncClient
import SyncServer
import Testing

/// The sync engine against a server with faults: it waits what the server
/// says, backs off otherwise, resends after a lost answer so the outcome is
/// right either way, never loses a queued change, and resumes a fetch from
/// its last stored batch.
@Suite struct RetryTests {
    let fixture = Fixture()
    let zone = Fixture.zone("Z")
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    func device(_ name: String = "phone", retry: RetryPolicy = .standard) throws -> TestDevice {
        try TestDevice(
            service: fixture.connect(device: name), clock: fixture.clock, directory: directory,
            configuration: .init(retry: retry, retrySeed: 1))
    }

    var retries: (TestDevice) -> [RetryReport] {
        { device in device.events.events.compactMap { if case .retryScheduled(let r) = $0 { r } else { nil } } }
    }

    func serverRecords() async throws -> [Record] {
        try await fixture.connect(device: "checker").serverRecords(in: zone)
    }

    @Test func honoursRetryAfter() async throws {
        let phone = try device()
        try await phone.service.createZones([zone])
        try await phone.engine.fetchChanges()
        fixture.server.addFault(FaultRule(.throttled(retryAfter: 3), match: FaultMatch(operations: ["records/modify"]), frequency: FaultFrequency(times: 2)))
        try phone.engine.save(Fixture.note("a", in: zone))
        let start = fixture.clock.now()
        try await phone.engine.sendChanges()
        let reports = retries(phone)
        #expect(reports.map(\.delay) == [3_000, 3_000])
        #expect(reports.allSatisfy { $0.fromRetryAfter && $0.code == .requestRateLimited })
        #expect(reports.map(\.attempt) == [1, 2])
        #expect(fixture.clock.now() - start == 6_000)
        #expect(try phone.engine.pendingChanges().isEmpty)
        #expect(try await serverRecords().map(\.recordID.recordName) == ["a"])
        #expect(reports.first?.summary == "THROTTLED, retry in 3 s (retryAfter), attempt 1")
    }

    @Test func backsOffExponentiallyWithJitterWithoutRetryAfter() async throws {
        let phone = try device()
        try await phone.service.createZones([zone])
        try await phone.engine.fetchChanges()
        fixture.server.addFault(FaultRule(.internalError, match: FaultMatch(operations: ["records/modify"]), frequency: FaultFrequency(times: 3)))
        try phone.engine.save(Fixture.note("a", in: zone))
        try await phone.engine.sendChanges()
        let delays = retries(phone).map(\.delay)
        #expect(delays.count == 3)
        // Attempt n waits between half and all of 1 s × 2^(n-1).
        for (index, delay) in delays.enumerated() {
            let ceiling = Milliseconds(1_000) << Milliseconds(index)
            #expect((ceiling / 2...ceiling).contains(delay), "attempt \(index + 1) waited \(delay) ms")
        }
        #expect(retries(phone).allSatisfy { !$0.fromRetryAfter })
        #expect(try phone.engine.pendingChanges().isEmpty)
    }

    @Test func theSameSeedGivesTheSameJitter() async throws {
        func delays() async throws -> [Milliseconds] {
            let fixture = Fixture()
            let phone = try TestDevice(
                service: fixture.connect(device: "phone"), clock: fixture.clock, directory: directory, configuration: .init(retrySeed: 9))
            try await phone.service.createZones([zone])
            try await phone.engine.fetchChanges()
            fixture.server.addFault(FaultRule(.internalError, match: FaultMatch(operations: ["records/modify"]), frequency: FaultFrequency(times: 3)))
            try phone.engine.save(Fixture.note("a", in: zone))
            try await phone.engine.sendChanges()
            return phone.events.events.compactMap { if case .retryScheduled(let r) = $0 { r.delay } else { nil } }
        }
        #expect(try await delays() == delays())
    }

    @Test func aNaiveClientRetriesAtOnceAndGivesUpWhileTheChangeStaysQueued() async throws {
        let phone = try device(retry: .naive)
        try await phone.service.createZones([zone])
        try await phone.engine.fetchChanges()
        fixture.server.addFault(FaultRule(.throttled(retryAfter: 5), match: FaultMatch(operations: ["records/modify"]), frequency: FaultFrequency(duration: 10_000)))
        try phone.engine.save(Fixture.note("a", in: zone))
        let start = fixture.clock.now()
        await #expect(throws: CloudError.self) { try await phone.engine.sendChanges() }
        #expect(retries(phone).map(\.delay) == [0, 0, 0, 0])
        #expect(fixture.clock.now() == start)
        #expect(try phone.engine.pendingChanges().count == 1)
        #expect(fixture.server.injectedFaultCounts[.throttled] == 5)
    }

    @Test func anAmbiguousCommitIsResentAndCountsAsSuccess() async throws {
        let phone = try device()
        try await phone.service.createZones([zone])
        try await phone.engine.fetchChanges()
        try phone.engine.save(Fixture.note("a", in: zone, ["title": "v1"]))
        try await phone.engine.sendChanges()
        // The edit is applied, but its answer is lost; the resend meets a conflict with what it sent.
        var edited = try #require(try phone.engine.record(Fixture.id("a", in: zone)))
        edited["title"] = "v2"
        try phone.engine.save(edited)
        fixture.server.addFault(FaultRule(.ambiguousCommit, match: FaultMatch(operations: ["records/modify"]), frequency: FaultFrequency(times: 1)))
        try await phone.engine.sendChanges()
        #expect(phone.events.events.contains(.ambiguousCommitResolved(scope: .private, recordID: Fixture.id("a", in: zone))))
        #expect(!phone.events.events.contains { if case .conflictMerged = $0 { true } else { false } })
        #expect(try phone.engine.pendingChanges().isEmpty)
        let server = try await serverRecords()
        #expect(server.map { $0["title"] } == ["v2"])
        // The cache holds the server's record, change tag included.
        #expect(try phone.engine.record(Fixture.id("a", in: zone))?.recordChangeTag == server.first?.recordChangeTag)
    }

    @Test func anAmbiguousCreateAndDeleteEndRightToo() async throws {
        let phone = try device()
        try await phone.service.createZones([zone])
        try await phone.engine.fetchChanges()
        fixture.server.addFault(FaultRule(.ambiguousCommit, match: FaultMatch(operations: ["records/modify"]), frequency: FaultFrequency(times: 1)))
        try phone.engine.save(Fixture.note("new", in: zone, ["title": "hello"]))
        try await phone.engine.sendChanges()
        #expect(try phone.engine.pendingChanges().isEmpty)
        #expect(try await serverRecords().map { $0["title"] } == ["hello"])

        fixture.server.addFault(FaultRule(.ambiguousCommit, match: FaultMatch(operations: ["records/modify"]), frequency: FaultFrequency(times: 1)))
        try phone.engine.delete(Fixture.id("new", in: zone))
        try await phone.engine.sendChanges()
        #expect(try phone.engine.pendingChanges().isEmpty)
        #expect(try await serverRecords().isEmpty)
    }

    @Test func quotaExceededKeepsTheChangeQueued() async throws {
        let phone = try device()
        try await phone.service.createZones([zone])
        try await phone.engine.fetchChanges()
        fixture.server.addFault(FaultRule(.quotaExceeded, frequency: FaultFrequency(times: 1)))
        try phone.engine.save(Fixture.note("a", in: zone))
        await #expect(throws: CloudError.self) { try await phone.engine.sendChanges() }
        #expect(try phone.engine.pendingChanges().count == 1)
        // An item-level quota failure keeps it queued too.
        fixture.server.addFault(FaultRule(.itemFailures(code: .quotaExceeded, retryAfter: nil), frequency: FaultFrequency(times: 1)))
        await #expect(throws: CloudError.self) { try await phone.engine.sendChanges() }
        #expect(try phone.engine.pendingChanges().count == 1)
        try await phone.engine.sendChanges()
        #expect(try phone.engine.pendingChanges().isEmpty)
        #expect(try await serverRecords().count == 1)
    }

    @Test func itemFailuresAreRetriedAfterTheirWait() async throws {
        let phone = try device()
        try await phone.service.createZones([zone])
        try await phone.engine.fetchChanges()
        fixture.server.addFault(FaultRule(.itemFailures(code: .zoneBusy, retryAfter: 2), frequency: FaultFrequency(times: 1)))
        for i in 0..<6 { try phone.engine.save(Fixture.note("r\(i)", in: zone)) }
        try await phone.engine.sendChanges()
        #expect(try phone.engine.pendingChanges().isEmpty)
        #expect(try await serverRecords().count == 6)
        #expect(retries(phone).map(\.delay) == [2_000])
        #expect(retries(phone).first?.code == .zoneBusy)
    }

    @Test func aFetchInterruptedByAFaultResumesFromItsLastStoredBatch() async throws {
        let writer = try fixture.connect(device: "laptop")
        try await writer.createZones([zone])
        try await writer.put((0..<6).map { Fixture.note("r\($0)", in: zone) })
        let phone = try device()
        // The third changes/zone request fails; batches of 2 records.
        fixture.server.addFault(FaultRule(.serviceUnavailable(retryAfter: 1), match: FaultMatch(operations: ["changes/zone"]), frequency: FaultFrequency(everyNth: 3, times: 1)))
        try await phone.engine.fetchChanges(resultsLimit: 2)
        #expect(try phone.engine.records(in: zone).count == 6)
        let applied = phone.events.events.compactMap { if case .recordsApplied(_, _, let saved, _, _) = $0 { saved } else { nil } }
        // 6 records in 3 batches: none fetched twice (a restart from no token would apply them again).
        #expect(applied.reduce(0, +) == 6)
        #expect(retries(phone).map(\.operation) == ["changes/zone"])
    }

    @Test func aDatabaseFetchRetriesFromItsStoredToken() async throws {
        let phone = try device()
        try await phone.service.createZones([zone])
        fixture.server.addFault(FaultRule(.throttled(retryAfter: 1), match: FaultMatch(operations: ["changes/database"]), frequency: FaultFrequency(times: 1)))
        try await phone.engine.fetchChanges()
        #expect(try phone.store.knownZones(in: .private).map(\.zoneID) == [zone])
        #expect(retries(phone).map(\.operation) == ["changes/database"])
    }
}
