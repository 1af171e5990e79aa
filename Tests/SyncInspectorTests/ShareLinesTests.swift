import SyncCore
import SyncServer
import SyncSimulation
import SyncWorlds
import Testing
@testable import SyncInspector
import SyncInspectorWorlds

/// A zone's `CKShare` in the zones pane: the share and its participants
/// under the owner's zone, and the zone shared by its owner in the invitee's
/// shared database — read through the world's `ServerObserver`, so the
/// same lines for an in-process server and one over HTTP.
@Suite("Share lines")
struct ShareLinesTests {
    static let size = Size(width: 120, height: 40)

    /// The demo world, with alice's Notes shared with bob by a zone-wide
    /// CKShare (READ_WRITE) that bob accepted, and its first read done.
    func sharedDemo() async throws -> (InspectorController, String) {
        let inspector = try await makeInspector(size: Self.size)
        let container = inspector.simulation.container
        let guid = try inspector.simulation.server.withEngine { (engine) throws(CloudError) -> String in
            let owner = Caller(user: "alice")
            let privateDatabase = DatabaseID(container: container, environment: .development, scope: .private)
            let share = try engine.saveZoneShare(
                caller: owner, database: privateDatabase, zoneID: RecordZoneID(zoneName: "Notes", ownerName: "alice"),
                ShareSave(publicPermission: .none, invitations: [.init(user: "bob", permission: .readWrite)]))
            let sharedDatabase = DatabaseID(container: container, environment: .development, scope: .shared)
            _ = try engine.acceptShare(caller: Caller(user: "bob"), database: sharedDatabase, shortGUID: share.shortGUID)
            return share.shortGUID
        }
        await inspector.refresh()
        return (inspector, guid)
    }

    @Test func theOwnersZoneListsItsShareAndParticipants() async throws {
        let (inspector, guid) = try await sharedDemo()
        let zones = inspector.state.snapshot.zones
        let notes = try #require(zones.firstIndex { $0.entry?.zoneID.zoneName == "Notes" && $0.entry?.scope == .private })
        let lines = zones[(notes + 1)...].prefix { if case .share = $0 { true } else { false } }.compactMap { item -> String? in
            if case .share(let line) = item { line.text } else { nil }
        }
        #expect(lines == [
            "  ⤷ CKShare, zone-wide · public NONE · guid \(guid)",
            "    alice READ_WRITE ACCEPTED OWNER (you)",
            "    bob   READ_WRITE ACCEPTED PRIVATE_USER",
        ])
        try ScreenGolden.check(inspector.frame(), title: "zone share, owner · colored", file: "zone-share-owner-120x40-colored.golden")
        // The share lines are not selectable: j from Notes goes to the next zone, and k back.
        try await inspector.selectZone("Notes")
        await inspector.press(.character("j"))
        #expect(inspector.state.zone?.zoneID.zoneName == "Photos")
        await inspector.press(.character("k"))
        #expect(inspector.state.zone?.zoneID.zoneName == "Notes")
    }

    @Test func theInviteesSharedDatabaseShowsTheZoneSharedByItsOwner() async throws {
        let (inspector, _) = try await sharedDemo()
        try await inspector.focus("iPad")
        let zones = inspector.state.snapshot.zones
        let notes = try #require(zones.firstIndex { $0.entry?.zoneID == RecordZoneID(zoneName: "Notes", ownerName: "alice") && $0.entry?.scope == .shared })
        guard case .share(let line) = zones[notes + 1] else {
            Issue.record("no share line under Notes@alice: \(zones)")
            return
        }
        #expect(line.text.hasPrefix("  ⤷ shared by alice · zone-wide · public NONE · guid "))
        guard case .share(let bob) = zones[notes + 3] else { return }
        #expect(bob.text == "    bob   READ_WRITE ACCEPTED PRIVATE_USER (you)")
        try ScreenGolden.check(inspector.frame(), title: "zone share, invitee · colored", file: "zone-share-invitee-120x40-colored.golden")
    }

    /// An invitation not accepted yet is a warning; removing the participant takes the line away.
    @Test func aPendingInvitationWarnsAndARemovedParticipantGoes() async throws {
        let inspector = try await makeInspector(size: Self.size)
        let container = inspector.simulation.container
        let privateDatabase = DatabaseID(container: container, environment: .development, scope: .private)
        let notes = RecordZoneID(zoneName: "Notes", ownerName: "alice")
        _ = try inspector.simulation.server.withEngine { (engine) throws(CloudError) in
            try engine.saveZoneShare(
                caller: Caller(user: "alice"), database: privateDatabase, zoneID: notes,
                ShareSave(publicPermission: .readOnly, invitations: [.init(user: "bob", permission: .readOnly)]))
        }
        await inspector.refresh()
        var bob = inspector.state.snapshot.zones.compactMap { item -> ZoneShareLine? in
            if case .share(let line) = item, case .participant(let p, _) = line.kind, p.user == "bob" { line } else { nil }
        }
        #expect(bob.map(\.text) == ["    bob   READ_ONLY PENDING PRIVATE_USER"])
        #expect(bob.first?.isPending == true)
        #expect(inspector.state.snapshot.zones.contains { if case .share(let l) = $0 { l.text.contains("public READ_ONLY") } else { false } })
        _ = try inspector.simulation.server.withEngine { (engine) throws(CloudError) in
            try engine.saveZoneShare(caller: Caller(user: "alice"), database: privateDatabase, zoneID: notes, ShareSave(publicPermission: .readOnly, invitations: []))
        }
        await inspector.refresh()
        bob = inspector.state.snapshot.zones.compactMap { item -> ZoneShareLine? in
            if case .share(let line) = item, case .participant(let p, _) = line.kind, p.user == "bob" { line } else { nil }
        }
        #expect(bob.isEmpty)
    }

    /// A record share names its root record (or, when the server does not say it, its own record).
    @Test func aRecordShareNamesItsRootRecord() {
        let participants = [ServerShare.Participant(user: "alice", permission: "READ_WRITE", acceptanceStatus: "ACCEPTED", type: "OWNER")]
        let rooted = ServerShare(
            recordName: "Share-1", rootRecordName: "note-1", owner: "alice", publicPermission: "NONE", shortGUID: "g1", participants: participants)
        let unrooted = ServerShare(recordName: "Share-2", owner: "alice", publicPermission: "NONE", shortGUID: "g2", participants: participants)
        let entry = ZoneEntry(
            scope: .private, zoneID: RecordZoneID(zoneName: "Notes", ownerName: "alice"), recordCount: 2, lastSequence: nil, serverToken: nil,
            deviceToken: nil, state: .inSync, shares: [rooted, unrooted])
        let lines = ZoneShareLine.lines(of: entry, viewer: "alice").map(\.text)
        #expect(lines == [
            "  ⤷ CKShare, record note-1 · public NONE · guid g1", "    alice READ_WRITE ACCEPTED OWNER (you)",
            "  ⤷ CKShare, record share Share-2 · public NONE · guid g2", "    alice READ_WRITE ACCEPTED OWNER (you)",
        ])
        #expect(!rooted.isZoneWide && !unrooted.isZoneWide)
    }

    /// Over HTTP the server gives the share's URL: the line shows it in place of the short GUID.
    @Test func aShareWithAURLShowsTheURL() {
        let share = ServerShare(
            owner: "alice", publicPermission: "READ_ONLY", shortGUID: "abc", url: "http://127.0.0.1:8080/share/abc",
            participants: [.init(user: "alice", permission: "READ_WRITE", acceptanceStatus: "ACCEPTED", type: "OWNER")])
        let entry = ZoneEntry(
            scope: .shared, zoneID: RecordZoneID(zoneName: "Notes", ownerName: "alice"), recordCount: 0, lastSequence: nil, serverToken: nil,
            deviceToken: nil, state: .inSync, shares: [share])
        let lines = ZoneShareLine.lines(of: entry, viewer: "carol").map(\.text)
        #expect(lines == [
            "  ⤷ shared by alice · zone-wide · public READ_ONLY · http://127.0.0.1:8080/share/abc",
            "    alice READ_WRITE ACCEPTED OWNER",
        ])
    }
}
