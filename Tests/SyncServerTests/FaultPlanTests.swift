import Foundation
import SyncCore
import SyncWire
import SyncServer
import Testing

/// The fault model of the engine layer: rules, how often they fire, what each
/// effect does to a call, and that the same seed and plan give the same faults.
@Suite struct FaultPlanTests {
    let clock = VirtualClock()
    let server: SimulatedServer
    let zone = RecordZoneID(zoneName: "Z", ownerName: "alice")

    init() throws {
        server = SimulatedServer(configuration: ServerConfiguration(seed: 42), clock: clock)
    }

    func alice(_ device: String = "alice-phone") throws -> InProcessCloudService {
        try server.connect(user: "alice", deviceID: device)
    }

    func note(_ name: String, _ title: String = "t") -> Record {
        Record(recordID: RecordID(recordName: name, zoneID: zone), recordType: "Note", fields: ["title": .string(title)])
    }

    func save(_ records: [Record], via service: InProcessCloudService) async throws -> [Result<RecordOperationResult, CloudError>] {
        try await service.modifyRecords(in: .private, zoneID: zone, operations: records.map { .save($0, policy: .allKeys) }, atomic: false, clientChangeTokenData: nil)
    }

    func serverTitles() throws -> [String: String] {
        let batch = try server.withEngine { (e) throws(CloudError) in
            try e.fetchRecordZoneChanges(caller: Caller(user: "alice"), database: DatabaseID(container: "iCloud.com.example.SyncScope", scope: .private), [ZoneChangesRequest(zoneID: zone)])[0].get()
        }
        var titles: [String: String] = [:]
        for case .changed(let record) in batch.changes {
            if case .string(let title)? = record["title"] { titles[record.recordID.recordName] = title }
        }
        return titles
    }

    @Test func withNoPlanNoDecisionIsMade() throws {
        let call = FaultCall(operation: "records/modify", database: .private, user: "alice", deviceID: "alice-phone")
        #expect(server.faultDecision(for: call) == nil)
        server.addFaults(FaultPlan())
        #expect(server.faultDecision(for: call) == nil)
        #expect(server.faultRules.isEmpty)
    }

    @Test func throttledAnswersRequestRateLimitedWithRetryAfterAndAppliesNothing() async throws {
        let service = try alice()
        try await service.createZones([zone])
        server.addFault(FaultRule(.throttled(retryAfter: 3), match: FaultMatch(operations: ["records/modify"]), frequency: FaultFrequency(times: 1)))
        await #expect(throws: CloudError.self) { _ = try await save([note("a")], via: service) }
        do {
            _ = try await save([note("a")], via: service)  // the rule fired once: this one goes through
        }
        server.addFault(FaultRule(.throttled(retryAfter: 3), frequency: FaultFrequency(times: 1)))
        do {
            _ = try await save([note("b")], via: service)
            Issue.record("expected THROTTLED")
        } catch let error as CloudError {
            #expect(error.code == .requestRateLimited)
            #expect(error.serverErrorCode == "THROTTLED")
            #expect(error.retryAfter == 3)
            #expect(error.code.httpStatus == 429)
        }
        #expect(try serverTitles().keys.sorted() == ["a"])
        #expect(server.injectedFaultCounts[.throttled] == 2)
    }

    @Test func eachErrorEffectHasItsCodeAndWireName() async throws {
        let service = try alice()
        try await service.createZones([zone])
        let cases: [(FaultEffect, CloudError.Code, String, Double?)] = [
            (.zoneBusy(retryAfter: 2), .zoneBusy, "ZONE_BUSY", 2),
            (.serviceUnavailable(retryAfter: 5), .serviceUnavailable, "TRY_AGAIN_LATER", 5),
            (.quotaExceeded, .quotaExceeded, "QUOTA_EXCEEDED", nil),
            (.internalError, .internalError, "INTERNAL_ERROR", nil),
        ]
        for (effect, code, wire, retryAfter) in cases {
            server.addFault(FaultRule(effect, frequency: FaultFrequency(times: 1)))
            do {
                _ = try await save([note("x")], via: service)
                Issue.record("expected \(wire)")
            } catch let error as CloudError {
                #expect(error.code == code)
                #expect(error.serverErrorCode == wire)
                #expect(error.retryAfter == retryAfter)
                // And it survives the wire.
                let wireError = WireError(error)
                #expect(wireError.retryAfter == retryAfter)
                #expect(CloudError(wireError).code == code)
                #expect(CloudError(wireError).retryAfter == retryAfter)
            }
        }
        #expect(try serverTitles().isEmpty)
    }

    @Test func everyNthFiresOnTheNthMatchingCallOnly() async throws {
        let service = try alice()
        try await service.createZones([zone])
        server.addFault(FaultRule(.internalError, match: FaultMatch(operations: ["records/lookup"]), frequency: FaultFrequency(everyNth: 3)))
        var failed: [Int] = []
        for i in 1...9 {
            do { _ = try await service.lookupRecords(in: .private, zoneID: zone, recordNames: ["a"], desiredKeys: nil) } catch { failed.append(i) }
        }
        #expect(failed == [3, 6, 9])
    }

    @Test func aTimeWindowStartsAndEndsOnTheClock() async throws {
        let service = try alice()
        try await service.createZones([zone])
        server.addFault(FaultRule(.serviceUnavailable(retryAfter: nil), frequency: FaultFrequency(startAfter: 1_000, duration: 2_000)))
        func fails() async -> Bool {
            do { _ = try await service.listRecordZones(in: .private); return false } catch { return true }
        }
        #expect(await fails() == false)
        clock.advance(by: 1_000)
        #expect(await fails() == true)
        clock.advance(by: 1_999)
        #expect(await fails() == true)
        clock.advance(by: 1)
        #expect(await fails() == false)
    }

    @Test func matchingByDeviceUserZoneAndDatabase() async throws {
        let phone = try alice("alice-phone"), laptop = try alice("alice-laptop")
        try await phone.createZones([zone])
        server.addFault(FaultRule(.internalError, match: FaultMatch(database: .private, zone: "Z", user: "alice", device: "phone")))
        await #expect(throws: CloudError.self) { _ = try await save([note("a")], via: phone) }
        _ = try await save([note("a")], via: laptop)
        // Another zone does not match.
        let other = RecordZoneID(zoneName: "Other", ownerName: "alice")
        try await laptop.createZones([other])
        _ = try await phone.modifyRecords(in: .private, zoneID: other, operations: [.save(Record(recordID: RecordID(recordName: "o", zoneID: other), recordType: "Note"), policy: .allKeys)], atomic: false, clientChangeTokenData: nil)
    }

    @Test func ambiguousCommitAppliesTheChangeButLosesTheAnswer() async throws {
        let service = try alice()
        try await service.createZones([zone])
        server.addFault(FaultRule(.ambiguousCommit, frequency: FaultFrequency(times: 1)))
        do {
            _ = try await save([note("a", "first")], via: service)
            Issue.record("expected the answer to be lost")
        } catch let error as CloudError {
            #expect(error.code == .networkFailure)
        }
        #expect(try serverTitles() == ["a": "first"])
        #expect(server.injectedFaultCounts[.ambiguousCommit] == 1)
    }

    @Test func itemFailuresFailSomeItemsAndApplyTheOthers() async throws {
        let service = try alice()
        try await service.createZones([zone])
        server.addFault(FaultRule(.itemFailures(code: .zoneBusy, retryAfter: 1), frequency: FaultFrequency(times: 1)))
        let records = (0..<8).map { note("r\($0)") }
        let results = try await save(records, via: service)
        let failed = results.indices.filter { if case .failure = results[$0] { true } else { false } }
        #expect(!failed.isEmpty)
        for index in failed {
            if case .failure(let error) = results[index] {
                #expect(error.code == .zoneBusy)
                #expect(error.retryAfter == 1)
                #expect(error.recordName == "r\(index)")
            }
        }
        let applied = Set(results.indices.filter { !failed.contains($0) }.map { "r\($0)" })
        #expect(Set(try serverTitles().keys) == applied)
    }

    @Test func itemFailuresInAnAtomicBatchApplyNothing() async throws {
        let service = try alice()
        try await service.createZones([zone])
        server.addFault(FaultRule(.itemFailures(code: .zoneBusy, retryAfter: nil), frequency: FaultFrequency(times: 1)))
        let results = try await service.modifyRecords(
            in: .private, zoneID: zone, operations: (0..<4).map { .save(note("r\($0)"), policy: .allKeys) }, atomic: true, clientChangeTokenData: nil)
        let codes = results.compactMap { if case .failure(let e) = $0 { e.code } else { nil } }
        #expect(codes.count == 4)
        #expect(codes.contains(.zoneBusy))
        #expect(try serverTitles().isEmpty)
    }

    @Test func latencyMovesTheVirtualClock() async throws {
        let service = try alice()
        server.addFault(FaultRule(.latency(.fixed(250)), match: FaultMatch(operations: ["zones/list"])))
        let before = clock.now()
        _ = try await service.listRecordZones(in: .private)
        #expect(clock.now() - before == 250)
        _ = try await service.listRecordZones(in: .private)
        #expect(clock.now() - before == 500)
    }

    @Test func latencyDistributionsStayInTheirBounds() async throws {
        let service = try alice()
        server.addFault(FaultRule(.latency(.uniform(min: 10, max: 20))))
        for _ in 0..<50 {
            let before = clock.now()
            _ = try await service.listRecordZones(in: .private)
            #expect((10...20).contains(clock.now() - before))
        }
    }

    @Test func readLagHidesYoungChangesFromChangesDatabaseThenShowsThem() async throws {
        let service = try alice()
        let first = try await service.fetchDatabaseChanges(in: .private, since: nil, resultsLimit: nil)
        server.addFault(FaultRule(.readLag(2_000)))
        try await service.createZones([zone])
        let lagged = try await service.fetchDatabaseChanges(in: .private, since: first.serverChangeToken, resultsLimit: nil)
        #expect(lagged.changes.isEmpty)
        #expect(lagged.serverChangeToken == first.serverChangeToken)
        clock.advance(by: 2_000)
        let caughtUp = try await service.fetchDatabaseChanges(in: .private, since: first.serverChangeToken, resultsLimit: nil)
        #expect(caughtUp.changes == [.zoneChanged(zone)])
        #expect(server.injectedFaultCounts[.readLag] == 1)
    }

    @Test func pushFaultsDropDuplicateDelayAndReorder() async throws {
        let writer = try alice("alice-laptop")
        try await writer.createZones([zone])
        try server.registerDevice(user: "alice", deviceID: "alice-phone")
        _ = try await writer.modifySubscriptions(
            in: .private, saving: [.database(DatabaseSubscription(subscriptionID: "all", notificationInfo: NotificationInfo(shouldSendContentAvailable: true)))],
            deleting: [])
        func write(_ name: String) async throws {
            _ = try await save([note(name)], via: writer)
            clock.advance(by: 1_000)  // past the coalescing window: one notification per save
        }
        func deliveredIDs(within ms: Milliseconds) -> [String] {
            clock.advance(by: ms)
            return server.deliverDue().map(\.notification.notificationID)
        }
        // Drop.
        let drop = server.addFault(FaultRule(.pushDrop, frequency: FaultFrequency(times: 1)))
        try await write("a")
        #expect(deliveredIDs(within: 20_000).isEmpty)
        server.removeFault(id: drop)
        // Duplicate.
        server.addFault(FaultRule(.pushDuplicate, frequency: FaultFrequency(times: 1)))
        try await write("b")
        let twice = deliveredIDs(within: 1_000)
        #expect(twice.count == 2 && twice[0] == twice[1])
        // Delay.
        server.addFault(FaultRule(.pushDelay(5_000), frequency: FaultFrequency(times: 1)))
        try await write("c")
        #expect(deliveredIDs(within: 1_000).isEmpty)
        #expect(deliveredIDs(within: 5_000).count == 1)
        // Reorder: the first is held back until the second has arrived.
        server.addFault(FaultRule(.pushReorder, frequency: FaultFrequency(times: 1)))
        try await write("d")
        let events = server.drainPushEvents()
        let heldID = events.compactMap { if case .faultInjected(_, let id, .pushReorder, _) = $0.kind { id } else { nil } }.first
        try await write("e")
        let order = deliveredIDs(within: 2_000)
        #expect(order.count == 2)
        #expect(order.last == heldID)
        let counts = server.injectedFaultCounts
        for kind in [FaultKind.pushDrop, .pushDuplicate, .pushDelay, .pushReorder] { #expect(counts[kind] == 1, "\(kind)") }
    }

    @Test func theSameSeedAndPlanGiveTheSameFaults() async throws {
        func run() async throws -> [String] {
            let clock = VirtualClock()
            let server = SimulatedServer(configuration: ServerConfiguration(seed: 7), clock: clock)
            let service = try server.connect(user: "alice", deviceID: "alice-phone")
            try await service.createZones([zone])
            server.addFaults(FaultPlan([
                FaultRule(.throttled(retryAfter: 1), frequency: FaultFrequency(probability: 0.3)),
                FaultRule(.latency(.exponential(mean: 100)), frequency: FaultFrequency(probability: 0.5)),
                FaultRule(.itemFailures(code: .zoneBusy, retryAfter: nil), frequency: FaultFrequency(probability: 0.3)),
            ]))
            var transcript: [String] = []
            for i in 0..<40 {
                do {
                    let results = try await service.modifyRecords(
                        in: .private, zoneID: zone, operations: (0..<5).map { .save(note("r\(i)-\($0)"), policy: .allKeys) }, atomic: false,
                        clientChangeTokenData: nil)
                    transcript.append(results.map { if case .failure = $0 { "x" } else { "." } }.joined())
                } catch {
                    transcript.append("\(error)")
                }
                transcript.append("\(clock.now())")
            }
            return transcript + server.drainInjectedFaults().map(\.description)
        }
        let first = try await run(), second = try await run()
        #expect(first == second)
        #expect(first.contains { $0.contains("THROTTLED") })
    }

    @Test func rulesCanBeListedRemovedAndClearedByKind() {
        let a = server.addFault(FaultRule(.throttled(retryAfter: 1)))
        server.addFault(FaultRule(.pushDrop))
        server.addFault(FaultRule(.readLag(1_000)))
        #expect(server.faultRules.map(\.id) == [a, a + 1, a + 2])
        #expect(server.removeFault(id: a))
        #expect(!server.removeFault(id: a))
        #expect(server.clearFaults(kinds: [.pushDrop]) == 1)
        #expect(server.faultRules.map(\.rule.effect.kind) == [.readLag])
        #expect(server.clearFaults() == 1)
        #expect(server.faultRules.isEmpty)
    }
}

extension InProcessCloudService {
    fileprivate func createZones(_ zones: [RecordZoneID]) async throws {
        for result in try await modifyRecordZones(in: .private, saving: zones, deleting: []) { _ = try result.get() }
    }
}
