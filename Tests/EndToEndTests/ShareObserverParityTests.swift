import Foundation
import SyncCore
import SyncServer
import SyncSimulation
import SyncWorlds
import Testing

/// A zone-wide `CKShare` as the inspector reads it, through the in-process
/// engine and through the HTTP API: the same share, participants and
/// statuses for the owner and for the invitee (over HTTP with its URL too).
@Suite struct ShareObserverParityTests {
    let notes = RecordZoneID(zoneName: "Notes", ownerName: "alice")

    struct ShareView: Equatable {
        var owner: String
        var publicPermission: String
        var participants: [String]
    }

    func view(_ summaries: [ServerZoneSummary], scope: DatabaseScope) throws -> ShareView {
        let zone = try #require(summaries.first { $0.zoneID == notes && $0.scope == scope })
        let share = try #require(zone.shares.first)
        #expect(share.isZoneWide)
        return ShareView(
            owner: share.owner, publicPermission: share.publicPermission,
            participants: share.participants.map { "\($0.user) \($0.permission) \($0.acceptanceStatus) \($0.type)" })
    }

    @Test func theOwnerAndTheInviteeSeeTheSameShareInProcessAndOverHTTP() async throws {
        let expected = ShareView(
            owner: "alice", publicPermission: "NONE",
            participants: ["alice READ_WRITE ACCEPTED OWNER", "bob READ_WRITE ACCEPTED PRIVATE_USER"])

        // In process: the engine's share, saved and accepted.
        let simulation = try Simulation(setup: SimulationSetup(container: ServerProcess.container, users: ["alice", "bob"], devices: []))
        try simulation.server.withEngine { (engine) throws(CloudError) in
            let privateDatabase = DatabaseID(container: ServerProcess.container, environment: .development, scope: .private)
            _ = try engine.modifyRecordZones(caller: Caller(user: "alice"), database: privateDatabase, saving: [notes], deleting: [])
            let share = try engine.saveZoneShare(
                caller: Caller(user: "alice"), database: privateDatabase, zoneID: notes,
                ShareSave(publicPermission: .none, invitations: [.init(user: "bob", permission: .readWrite)]))
            let sharedDatabase = DatabaseID(container: ServerProcess.container, environment: .development, scope: .shared)
            _ = try engine.acceptShare(caller: Caller(user: "bob"), database: sharedDatabase, shortGUID: share.shortGUID)
        }
        #expect(try view(try await simulation.serverObserver.zoneSummaries(user: "alice"), scope: .private) == expected)
        #expect(try view(try await simulation.serverObserver.zoneSummaries(user: "bob"), scope: .shared) == expected)

        // Over HTTP: the share record saved with records/modify, accepted with records/accept.
        let server = try await ServerProcess.start()
        defer { server.stop(); server.removeData() }
        try await server.createZone("Notes")
        let saved = try await server.call(server.db("private", "records/modify"), [
            "zoneID": server.zoneID("Notes"),
            "operations": [["operationType": "create", "record": [
                "recordName": "cloudkit.zoneshare", "recordType": "cloudkit.share", "publicPermission": "NONE",
                "participants": [["userIdentity": ["lookupInfo": ["userRecordName": "bob"]], "permission": "READ_WRITE"]],
            ]]],
        ])
        #expect(saved.status == 200, "\(saved.json)")
        let guid = try #require((saved.list("records").first?["shortGUID"]) as? String)
        let accepted = try await server.call(server.db("public", "records/accept"), ["shortGUIDs": [["value": guid]]], user: "bob")
        #expect(accepted.status == 200, "\(accepted.json)")
        let alice = try await server.remoteDevice("iPhone")
        defer { alice.close() }
        let bob = try await server.remoteDevice("iPad", user: "bob")
        defer { bob.close() }
        let ownerSummaries = try await alice.serverObserver.zoneSummaries(user: "alice")
        #expect(try view(ownerSummaries, scope: .private) == expected)
        #expect(try view(try await bob.serverObserver.zoneSummaries(user: "bob"), scope: .shared) == expected)
        let share = try #require(ownerSummaries.first { $0.zoneID == notes }?.shares.first)
        #expect(share.shortGUID == guid)
        #expect(share.url?.hasSuffix("/share/\(guid)") == true)
        // A zone without a share has none.
        let others = ownerSummaries.filter { $0.zoneID != notes }
        #expect(others.allSatisfy { $0.shares.isEmpty })
    }
}
