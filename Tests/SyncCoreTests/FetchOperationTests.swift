import Foundation
import SyncCore
import SyncClient
import SyncServer
import Testing

@Suite struct FetchDatabaseChangesOperationTests {
    let fixture = Fixture()

    private func fiveZones() async throws -> (InProcessCloudService, [RecordZoneID]) {
        let service = try fixture.connect(device: "phone")
        let zones = (1...5).map { Fixture.zone("Z\($0)") }
        try await service.createZones(zones)
        return (service, zones)
    }

    @Test func changeTokenUpdatedBlockCalledAfterEachNonFinalBatch() async throws {
        let (service, zones) = try await fiveZones()
        let operation = FetchDatabaseChangesOperation(service: service, scope: .private, previousServerChangeToken: nil)
        operation.resultsLimit = 2
        var log: [String] = []
        var finals: [(ServerChangeToken, Bool)] = []
        operation.recordZoneWithIDChangedBlock = { log.append("zone \($0.zoneName)") }
        operation.changeTokenUpdatedBlock = { _ in log.append("token") }
        operation.fetchDatabaseChangesResultBlock = { result in
            log.append("result")
            if case .success(let final) = result { finals.append((final.serverChangeToken, final.moreComing)) }
        }
        await operation.run()
        #expect(log == [
            "zone Z1", "zone Z2", "token", "zone Z3", "zone Z4", "token", "zone Z5", "result",
        ])
        #expect(finals.count == 1)
        #expect(finals.first?.1 == false)
        #expect(operation.batchesReceived == 3)
        // The final token is current: nothing more since.
        let again = try await FetchDatabaseChangesOperation(service: service, scope: .private, previousServerChangeToken: finals.first?.0).fetch()
        #expect(again.changedZoneIDs.isEmpty)
        _ = zones
    }

    @Test func databaseResultBlockCalledExactlyOnceWithTheError() async throws {
        let (service, zones) = try await fiveZones()
        // A zone token is not a database token.
        let zoneToken = try #require(try await FetchRecordZoneChangesOperation(service: service, scope: .private, recordZoneIDs: [zones[0]]).fetch().latestToken(for: zones[0]))
        let operation = FetchDatabaseChangesOperation(service: service, scope: .private, previousServerChangeToken: zoneToken)
        var results: [Result<(serverChangeToken: ServerChangeToken, moreComing: Bool), any Error>] = []
        var tokenUpdates = 0
        operation.changeTokenUpdatedBlock = { _ in tokenUpdates += 1 }
        operation.fetchDatabaseChangesResultBlock = { results.append($0) }
        await operation.run()
        #expect(results.count == 1)
        #expect(tokenUpdates == 0)
        guard case .failure(let error as CloudError)? = results.first else {
            Issue.record("expected a CloudError, got \(results)")
            return
        }
        #expect(error.code == .invalidArguments)
    }

    @Test func fetchAllChangesFalseReturnsOneDatabaseBatchWithMoreComing() async throws {
        let (service, _) = try await fiveZones()
        let operation = FetchDatabaseChangesOperation(service: service, scope: .private)
        operation.resultsLimit = 2
        operation.fetchAllChanges = false
        let result = try await operation.fetch()
        #expect(result.changedZoneIDs.map(\.zoneName) == ["Z1", "Z2"])
        #expect(result.moreComing)
        #expect(result.intermediateTokens.isEmpty)
        #expect(result.batchCount == 1)
        #expect(!result.wasInterrupted)
    }

    @Test func databaseBatchLimitInterruptsAfterDeliveringTokenAndResumes() async throws {
        let (service, _) = try await fiveZones()
        let operation = FetchDatabaseChangesOperation(service: service, scope: .private)
        operation.resultsLimit = 2
        operation.batchLimit = 1
        var tokens: [ServerChangeToken] = []
        var outcome: Result<(serverChangeToken: ServerChangeToken, moreComing: Bool), any Error>?
        operation.changeTokenUpdatedBlock = { tokens.append($0) }
        operation.fetchDatabaseChangesResultBlock = { outcome = $0 }
        await operation.run()
        #expect(tokens.count == 1)
        guard case .failure(SyncClientError.interrupted(let after))? = outcome else {
            Issue.record("expected an interruption, got \(String(describing: outcome))")
            return
        }
        #expect(after == 1)
        let rest = try await FetchDatabaseChangesOperation(service: service, scope: .private, previousServerChangeToken: tokens.last).fetch()
        #expect(rest.changedZoneIDs.map(\.zoneName) == ["Z3", "Z4", "Z5"])
        #expect(!rest.moreComing)
    }

    @Test func zoneRemovalReasonsReachTheirOwnBlocks() async throws {
        let (service, zones) = try await fiveZones()
        let start = try await FetchDatabaseChangesOperation(service: service, scope: .private).fetch()
        try await service.deleteZones([zones[0]])
        try await service.purgeRecordZone(in: .private, zones[1])
        try await service.encryptedDataReset()
        let result = try await FetchDatabaseChangesOperation(service: service, scope: .private, previousServerChangeToken: start.serverChangeToken).fetch()
        #expect(result.deletedZoneIDs == [zones[0]])
        #expect(result.purgedZoneIDs == [zones[1]])
        #expect(result.encryptedDataResetZoneIDs == Array(zones[2...]))
        #expect(result.changedZoneIDs.isEmpty)
    }
}

@Suite struct FetchRecordZoneChangesOperationTests {
    let fixture = Fixture()

    private func twoZones() async throws -> (InProcessCloudService, RecordZoneID, RecordZoneID) {
        let service = try fixture.connect(device: "phone")
        let a = Fixture.zone("A"), b = Fixture.zone("B")
        try await service.createZones([a, b])
        try await service.put((1...5).map { Fixture.note("a\($0)", in: a) })
        try await service.put([Fixture.note("b1", in: b)])
        return (service, a, b)
    }

    @Test func recordZoneChangeTokensUpdatedBlockCalledAfterEachNonFinalBatchOfAZone() async throws {
        let (service, a, b) = try await twoZones()
        let operation = FetchRecordZoneChangesOperation(
            service: service, scope: .private, recordZoneIDs: [a, b],
            configurationsByRecordZoneID: [a: .init(resultsLimit: 2), b: .init(resultsLimit: 2)])
        var log: [String] = []
        operation.recordWasChangedBlock = { id, _ in log.append(id.recordName) }
        operation.recordZoneChangeTokensUpdatedBlock = { zone, token, _ in log.append("token \(zone.zoneName) \(token != nil)") }
        operation.recordZoneFetchResultBlock = { zone, result in
            if case .success(let final) = result { log.append("done \(zone.zoneName) more=\(final.moreComing)") } else { log.append("failed \(zone.zoneName)") }
        }
        operation.fetchRecordZoneChangesResultBlock = { result in log.append((try? result.get()) != nil ? "all done" : "all failed") }
        await operation.run()
        #expect(log == [
            "a1", "a2", "token A true", "a3", "a4", "token A true", "a5", "done A more=false",
            "b1", "done B more=false", "all done",
        ])
    }

    @Test func perZoneErrorDoesNotStopOtherZones() async throws {
        let (service, a, _) = try await twoZones()
        let missing = Fixture.zone("Missing")
        let operation = FetchRecordZoneChangesOperation(service: service, scope: .private, recordZoneIDs: [missing, a])
        var zoneResults: [String] = []
        var final: Result<Void, any Error>?
        operation.recordZoneFetchResultBlock = { zone, result in
            switch result {
            case .success: zoneResults.append("\(zone.zoneName) ok")
            case .failure(let error): zoneResults.append("\(zone.zoneName) \((error as? CloudError)?.code.rawValue ?? "?")")
            }
        }
        operation.fetchRecordZoneChangesResultBlock = { final = $0 }
        await operation.run()
        #expect(zoneResults == ["Missing zoneNotFound", "A ok"])
        guard case .failure(let error as CloudError)? = final else {
            Issue.record("expected partialFailure, got \(String(describing: final))")
            return
        }
        #expect(error.code == .partialFailure)
    }

    @Test func fetchAllChangesFalseFetchesOneBatchPerZone() async throws {
        let (service, a, b) = try await twoZones()
        let operation = FetchRecordZoneChangesOperation(
            service: service, scope: .private, recordZoneIDs: [a, b],
            configurationsByRecordZoneID: [a: .init(resultsLimit: 2), b: .init(resultsLimit: 2)])
        operation.fetchAllChanges = false
        let result = try await operation.fetch()
        #expect(result.changedRecords.map(\.recordID.recordName) == ["a1", "a2", "b1"])
        #expect(result.intermediateTokens.isEmpty)
        let outcomeA = try #require(try result.result(for: a)?.get())
        #expect(outcomeA.moreComing)
        // Resuming from A's token gets the rest.
        let rest = try await FetchRecordZoneChangesOperation(
            service: service, scope: .private, recordZoneIDs: [a],
            configurationsByRecordZoneID: [a: .init(previousServerChangeToken: outcomeA.serverChangeToken)]).fetch()
        #expect(rest.changedRecords.map(\.recordID.recordName) == ["a3", "a4", "a5"])
    }

    @Test func zoneBatchLimitInterruptsCurrentAndLaterZones() async throws {
        let (service, a, b) = try await twoZones()
        let operation = FetchRecordZoneChangesOperation(
            service: service, scope: .private, recordZoneIDs: [a, b],
            configurationsByRecordZoneID: [a: .init(resultsLimit: 2)])
        operation.batchLimit = 2
        var finals: [String] = []
        var tokenUpdates: [String] = []
        var opResult: Result<Void, any Error>?
        operation.recordZoneChangeTokensUpdatedBlock = { zone, _, _ in tokenUpdates.append(zone.zoneName) }
        operation.recordZoneFetchResultBlock = { zone, result in
            if case .failure(SyncClientError.interrupted) = result { finals.append("\(zone.zoneName) interrupted") } else { finals.append("\(zone.zoneName) other") }
        }
        operation.fetchRecordZoneChangesResultBlock = { opResult = $0 }
        await operation.run()
        #expect(tokenUpdates == ["A", "A"])
        #expect(finals == ["A interrupted", "B interrupted"])
        guard case .failure(SyncClientError.interrupted(afterBatches: 2))? = opResult else {
            Issue.record("expected interrupted(2), got \(String(describing: opResult))")
            return
        }
    }

    @Test func asyncFetchCollectsChangesDeletionsAndTokens() async throws {
        let (service, a, b) = try await twoZones()
        let first = try await FetchRecordZoneChangesOperation(service: service, scope: .private, recordZoneIDs: [a, b]).fetch()
        #expect(first.changedRecords.count == 6)
        let tokenA = try #require(first.latestToken(for: a))
        try await service.remove([Fixture.id("a2", in: a)])
        try await service.put([Fixture.note("a3", in: a, ["title": "new"])])
        let second = try await FetchRecordZoneChangesOperation(
            service: service, scope: .private, recordZoneIDs: [a],
            configurationsByRecordZoneID: [a: .init(previousServerChangeToken: tokenA, desiredKeys: [])]).fetch()
        #expect(second.deletedRecords == [DeletedRecord(recordID: Fixture.id("a2", in: a), recordType: "Note")])
        #expect(second.changedRecords.map(\.recordID.recordName) == ["a3"])
        #expect(second.changedRecords.first?.fields.isEmpty == true)  // desiredKeys: []
        #expect(second.zoneResults.count == 1)
    }
}
