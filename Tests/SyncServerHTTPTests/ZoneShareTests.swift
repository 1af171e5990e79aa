import Foundation
import SyncTestSupport
@testable import SyncServerHost
@testable import SyncServerSQLite
@testable import SyncServerHTTP
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `CKShare` over Web Services, as Apple documents it: a zone-wide share
/// (`cloudkit.zoneshare`) saved with `records/modify`, resolved and accepted
/// by its short GUID, over raw HTTP with two (and three) users.
@Suite struct ZoneShareTests {
    static let calls = DatabaseCalls(container: "iCloud.com.example.Shares")

    static let makeZone = #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#

    /// A `records/modify` body saving the zone's share.
    static func shareSave(publicPermission: String, participants: [(String, String)], byEmail: Bool = true) -> String {
        var items: [String] = []
        for (user, permission) in participants {
            let lookup = byEmail ? #""emailAddress":"\#(user)@syncscope.example""# : #""userRecordName":"\#(user)""#
            items.append(#"{"userIdentity":{"lookupInfo":{\#(lookup)}},"permission":"\#(permission)","acceptanceStatus":"PENDING","type":"USER"}"#)
        }
        let list = items.joined(separator: ",")
        return #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"forceReplace","record":{"recordName":"cloudkit.zoneshare","recordType":"cloudkit.share","publicPermission":"\#(publicPermission)","participants":[\#(list)]}}]}"#
    }


    func first(_ answer: RawHTTP.Answer, _ key: String) -> [String: Any] { (answer.json[key] as? [[String: Any]])?.first ?? [:] }

    func participant(_ share: [String: Any], _ user: String) -> [String: Any]? {
        (share["participants"] as? [[String: Any]])?.first { ($0["userIdentity"] as? [String: Any])?["userRecordName"] as? String == user }
    }

    @Test func aZoneWideShareCarriesApplesShareKeys() async throws {
        let server = try await LiveServer(ServeOptions(dataDirectory: nil, coalescingWindow: 0, seed: 3))
        defer { server.stop() }
        #expect(try await Self.calls.post(server, Self.calls.path("zones/modify"), Self.makeZone, token: server.aliceToken).status == 200)
        let saved = try await Self.calls.post(server, Self.calls.path("records/modify"), Self.shareSave(publicPermission: "NONE", participants: [("bob", "READ_ONLY")]), token: server.aliceToken)
        #expect(saved.status == 200, "\(saved.text)")
        let share = first(saved, "records")
        #expect(share["recordType"] as? String == "cloudkit.share" && share["recordName"] as? String == "cloudkit.zoneshare")
        #expect(share["publicPermission"] as? String == "NONE")
        let guid = try #require(share["shortGUID"] as? String)
        #expect(guid.count == 22)
        #expect(share["url"] as? String == "http://127.0.0.1:\(server.port)/share/\(guid)" || (share["url"] as? String)?.hasSuffix("/share/\(guid)") == true)
        let owner = try #require(share["owner"] as? [String: Any])
        #expect(owner["type"] as? String == "OWNER" && owner["permission"] as? String == "READ_WRITE" && owner["acceptanceStatus"] as? String == "ACCEPTED")
        #expect((share["currentUserParticipant"] as? [String: Any])?["type"] as? String == "OWNER")
        let bob = try #require(participant(share, "bob"))
        #expect(bob["permission"] as? String == "READ_ONLY" && bob["acceptanceStatus"] as? String == "PENDING" && bob["type"] as? String == "PRIVATE_USER")
        #expect(((bob["userIdentity"] as? [String: Any])?["lookupInfo"] as? [String: Any])?["emailAddress"] as? String == "bob@syncscope.example")
        #expect((share["participants"] as? [Any])?.count == 2)

        // cloudkit.share is a system type: production takes it with no schema deployed.
        let production = "/database/1/\(Self.calls.container)/production/private/"
        #expect(try await Self.calls.post(server, production + "zones/modify", Self.makeZone, token: server.aliceToken).status == 200)
        let inProduction = try await Self.calls.post(server, production + "records/modify", Self.shareSave(publicPermission: "NONE", participants: [("bob", "READ_ONLY")]), token: server.aliceToken)
        #expect(inProduction.status == 200 && first(inProduction, "records")["shortGUID"] is String, "\(inProduction.text)")

        // One share per zone: a second save keeps the short GUID.
        let again = try await Self.calls.post(server, Self.calls.path("records/modify"), Self.shareSave(publicPermission: "READ_ONLY", participants: [("bob", "READ_WRITE")], byEmail: false).replacingOccurrences(of: "PENDING", with: "INVITED"), token: server.aliceToken)
        #expect(first(again, "records")["shortGUID"] as? String == guid)
        #expect(participant(first(again, "records"), "bob")?["permission"] as? String == "READ_WRITE", "\(again.text)")
        #expect(participant(first(again, "records"), "bob")?["acceptanceStatus"] as? String == "PENDING")
        // Record shares, a share under another name, unknown users and spellings are refused with Apple's codes.
        let recordShare = #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"create","record":{"recordName":"s1","recordType":"cloudkit.share"}}]}"#
        let refused = try await Self.calls.post(server, Self.calls.path("records/modify"), recordShare, token: server.aliceToken)
        #expect(refused.status == 400 && refused.json["serverErrorCode"] as? String == "BAD_REQUEST", "\(refused.text)")
        let stranger = try await Self.calls.post(server, Self.calls.path("records/modify"), Self.shareSave(publicPermission: "NONE", participants: [("zed", "READ_ONLY")]), token: server.aliceToken)
        #expect(stranger.status == 400, "\(stranger.text)")
        let badPermission = try await Self.calls.post(server, Self.calls.path("records/modify"), Self.shareSave(publicPermission: "WRITE", participants: []), token: server.aliceToken)
        #expect(badPermission.status == 400 && badPermission.text.contains("READ_WRITE"))
        let badStatus = Self.shareSave(publicPermission: "NONE", participants: [("bob", "READ_ONLY")]).replacingOccurrences(of: "PENDING", with: "MAYBE")
        #expect(try await Self.calls.post(server, Self.calls.path("records/modify"), badStatus, token: server.aliceToken).status == 400)
        // A participant sent as REMOVED leaves the share.
        let removing = Self.shareSave(publicPermission: "NONE", participants: [("bob", "READ_ONLY")]).replacingOccurrences(of: "PENDING", with: "REMOVED")
        let removed = try await Self.calls.post(server, Self.calls.path("records/modify"), removing, token: server.aliceToken)
        #expect(participant(first(removed, "records"), "bob") == nil && (first(removed, "records")["participants"] as? [Any])?.count == 1, "\(removed.text)")
        // Only the owner shares: Bob cannot save a share of his own zone's name in Alice's zone.
        let bobTries = try await Self.calls.post(server, Self.calls.path("records/modify", scope: "shared"), Self.shareSave(publicPermission: "NONE", participants: []).replacingOccurrences(of: #""zoneName":"Notes""#, with: #""zoneName":"Notes","ownerRecordName":"alice""#), token: server.bobToken)
        #expect(bobTries.status == 403 || bobTries.status == 404, "\(bobTries.text)")
    }

    @Test func aShareSurvivesARestartFromTheJournalAndFromACheckpoint() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("shares-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let options = ServeOptions(dataDirectory: directory, coalescingWindow: 0, seed: 4, quiet: true)
        var guid = ""
        do {
            // No clean stop: the next start replays the journal (the share's row is JSON).
            let host = try await ServerHost.start(options: options)
            #expect(await host.perform(Self.calls.call("zones/modify", Self.makeZone)).status == 200)
            let saved = await host.perform(Self.calls.call("records/modify", Self.shareSave(publicPermission: "NONE", participants: [("bob", "READ_WRITE")])))
            guid = try #require(saved.items("records").first?["shortGUID"] as? String)
        }
        let accept = #"{"shortGUIDs":[{"value":"\#(guid)"}]}"#
        do {
            let host = try await ServerHost.start(options: options)
            let accepted = await host.perform(Self.calls.call("records/accept", accept, user: "bob", scope: "public"))
            let result = accepted.items("results").first
            #expect(result?["participantStatus"] as? String == "ACCEPTED", "\(String(decoding: accepted.body, as: UTF8.self))")
            await host.stop()  // a clean stop writes a checkpoint
        }
        let host = try await ServerHost.start(options: options)
        defer { Task { await host.stop() } }
        let resolved = await host.perform(Self.calls.call("records/resolve", accept, user: "bob", scope: "public"))
        let result = try #require(resolved.items("results").first)
        #expect(result["participantStatus"] as? String == "ACCEPTED" && result["participantPermission"] as? String == "READ_WRITE")
        #expect((result["share"] as? [String: Any])?["shortGUID"] as? String == guid)
        let lookup = await host.perform(Self.calls.call("zones/list", "{}", user: "bob", scope: "shared"))
        #expect(String(decoding: lookup.body, as: UTF8.self).contains(#""zoneName":"Notes""#))
    }

    /// Accepting changes the share record in the owner's zone (its
    /// participant list), as a save does: the owner's zone subscription
    /// fires, so the owner's client fetches the share with Bob accepted.
    @Test func aParticipantAcceptingNotifiesTheOwnersZoneSubscription() async throws {
        let server = try await LiveServer(ServeOptions(dataDirectory: nil, coalescingWindow: 0, seed: 7))
        defer { server.stop() }
        let alice = server.aliceToken, bob = server.bobToken
        #expect(try await Self.calls.post(server, Self.calls.path("zones/modify"), Self.makeZone, token: alice).status == 200)
        let subscribe = #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"notes","subscriptionType":"zone","zoneID":{"zoneName":"Notes"}}}]}"#
        #expect(try await Self.calls.post(server, Self.calls.path("subscriptions/modify"), subscribe, token: alice).status == 200)
        let created = try await Self.calls.post(server, "/device/1/\(Self.calls.container)/development/tokens/create", #"{"apnsEnvironment":"development"}"#, token: alice)
        let courier = try #require((created.json["webcourierURL"] as? String).flatMap(URLComponents.init(string:)))
        let saved = try await Self.calls.post(server, Self.calls.path("records/modify"), Self.shareSave(publicPermission: "NONE", participants: [("bob", "READ_WRITE")]), token: alice)
        let guid = try #require(first(saved, "records")["shortGUID"] as? String, "\(saved.text)")
        // The share's save is a change of the zone too: its notification is read and acknowledged first.
        let shared = try await server.raw.exchange(RawHTTP.request("GET", courier.percentEncodedPath + "?timeout=10"))
        let savedID = try #require((shared.json["ck"] as? [String: Any])?["nid"] as? String, "\(shared.text)")

        let poll = try await server.raw.connect()
        defer { close(poll) }
        try await server.raw.write(poll, RawHTTP.request("GET", courier.percentEncodedPath + "?timeout=20&lastNotificationID=\(savedID)"))
        let accepted = try await Self.calls.post(server, Self.calls.path("records/accept", scope: "public"), #"{"shortGUIDs":[{"value":"\#(guid)"}]}"#, token: bob)
        #expect(first(accepted, "results")["participantStatus"] as? String == "ACCEPTED", "\(accepted.text)")
        let push = try await server.raw.read(poll)
        let ck = try #require(push.json["ck"] as? [String: Any], "\(push.text)")
        #expect(ck["nid"] as? String != savedID)
        let zone = try #require(ck["fet"] as? [String: Any], "a zone notification: \(push.text)")
        #expect(zone["zid"] as? String == "Notes" && zone["zoid"] as? String == "alice" && zone["sid"] as? String == "notes", "\(push.text)")
    }

    @Test func twoUsersInviteResolveAcceptWriteAndRemoveOverRawHTTP() async throws {
        let server = try await LiveServer(ServeOptions(dataDirectory: nil, users: ["alice", "bob", "carol"], coalescingWindow: 0, seed: 5))
        defer { server.stop() }
        let alice = server.aliceToken, bob = server.bobToken
        let carol = try #require(server.host.users.first { $0.name == "carol" }?.webAuthToken)
        let inZone = #""zoneID":{"zoneName":"Notes","ownerRecordName":"alice"}"#
        #expect(try await Self.calls.post(server, Self.calls.path("zones/modify"), Self.makeZone, token: alice).status == 200)
        let note = #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"create","record":{"recordName":"n1","recordType":"Note","fields":{"title":{"value":"Alice's"}}}}]}"#
        #expect(try await Self.calls.post(server, Self.calls.path("records/modify"), note, token: alice).status == 200)

        // Bob listens to his shared database before anything is shared with him.
        let subscribe = #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"shared","subscriptionType":"database"}}]}"#
        #expect(try await Self.calls.post(server, Self.calls.path("subscriptions/modify", scope: "shared"), subscribe, token: bob).status == 200)
        let created = try await Self.calls.post(server, "/device/1/\(Self.calls.container)/development/tokens/create", #"{"apnsEnvironment":"development"}"#, token: bob)
        let courier = try #require((created.json["webcourierURL"] as? String).flatMap(URLComponents.init(string:)))
        let before = try await Self.calls.post(server, Self.calls.path("changes/database", scope: "shared"), "{}", token: bob)
        #expect((before.json["zones"] as? [Any])?.isEmpty == true, "\(before.text)")
        let token = try #require(before.json["syncToken"] as? String)

        // Alice invites Bob, read-only.
        let saved = try await Self.calls.post(server, Self.calls.path("records/modify"), Self.shareSave(publicPermission: "NONE", participants: [("bob", "READ_ONLY")]), token: alice)
        let guid = try #require(first(saved, "records")["shortGUID"] as? String, "\(saved.text)")
        let byGUID = #"{"shortGUIDs":[{"value":"\#(guid)","shouldFetchRootRecord":true,"rootRecordDesiredKeys":["title"]}]}"#

        // Bob resolves the share (Apple's path is under public), Carol may not.
        let resolved = try await Self.calls.post(server, Self.calls.path("records/resolve", scope: "public"), byGUID, token: bob)
        let info = first(resolved, "results")
        #expect(info["participantStatus"] as? String == "PENDING" && info["participantPermission"] as? String == "READ_ONLY", "\(resolved.text)")
        #expect(info["participantType"] as? String == "PRIVATE_USER" && info["databaseScope"] as? String == "SHARED")
        #expect((info["zoneID"] as? [String: Any])?["ownerRecordName"] as? String == "alice")
        #expect((info["ownerIdentity"] as? [String: Any])?["userRecordName"] as? String == "alice")
        #expect(((info["share"] as? [String: Any])?["currentUserParticipant"] as? [String: Any])?["acceptanceStatus"] as? String == "PENDING")
        let carolResolves = try await Self.calls.post(server, Self.calls.path("records/resolve", scope: "public"), byGUID, token: carol)
        #expect(first(carolResolves, "results")["serverErrorCode"] as? String == "ACCESS_DENIED", "\(carolResolves.text)")
        let unknown = try await Self.calls.post(server, Self.calls.path("records/resolve", scope: "public"), #"{"shortGUIDs":[{"value":"nope"}]}"#, token: bob)
        #expect(first(unknown, "results")["serverErrorCode"] as? String == "NOT_FOUND")
        // Not accepted yet: the zone is not in Bob's shared database.
        let early = try await Self.calls.post(server, Self.calls.path("records/lookup", scope: "shared"), #"{\#(inZone),"records":[{"recordName":"n1"}]}"#, token: bob)
        #expect(early.status == 404, "\(early.text)")

        // Bob accepts while his web client polls: the database subscription fires.
        let poll = try await server.raw.connect()
        defer { close(poll) }
        try await server.raw.write(poll, RawHTTP.request("GET", courier.percentEncodedPath + "?timeout=20"))
        let accepted = try await Self.calls.post(server, Self.calls.path("records/accept", scope: "public"), byGUID, token: bob)
        #expect(first(accepted, "results")["participantStatus"] as? String == "ACCEPTED", "\(accepted.text)")
        let push = try await server.raw.read(poll)
        #expect(push.status == 200 && (push.json["ck"] as? [String: Any])?["met"] != nil, "\(push.text)")
        let changes = try await Self.calls.post(server, Self.calls.path("changes/database", scope: "shared"), #"{"syncToken":"\#(token)"}"#, token: bob)
        #expect(first(changes, "zones")["zoneID"].flatMap { ($0 as? [String: Any])?["zoneName"] as? String } == "Notes", "\(changes.text)")
        let afterAccept = try #require(changes.json["syncToken"] as? String)
        let read = try await Self.calls.post(server, Self.calls.path("records/lookup", scope: "shared"), #"{\#(inZone),"records":[{"recordName":"n1"}]}"#, token: bob)
        #expect(read.text.contains("Alice's"), "\(read.text)")
        // The share record itself, looked up in Bob's shared database, carries the share keys as he sees them.
        let shareRecord = first(try await Self.calls.post(server, Self.calls.path("records/lookup", scope: "shared"), #"{\#(inZone),"records":[{"recordName":"cloudkit.zoneshare"}]}"#, token: bob), "records")
        #expect(shareRecord["shortGUID"] as? String == guid && (shareRecord["owner"] as? [String: Any])?["participantId"] as? String == "alice")
        #expect((shareRecord["currentUserParticipant"] as? [String: Any])?["acceptanceStatus"] as? String == "ACCEPTED", "\(shareRecord)")

        // Read-only: Bob cannot write; READ_WRITE: he can, and Alice sees it.
        let bobNote = #"{\#(inZone),"operations":[{"operationType":"create","record":{"recordName":"b1","recordType":"Note","fields":{"title":{"value":"Bob's"}}}}]}"#
        let denied = try await Self.calls.post(server, Self.calls.path("records/modify", scope: "shared"), bobNote, token: bob)
        #expect(denied.status == 403 && denied.json["serverErrorCode"] as? String == "ACCESS_DENIED", "\(denied.text)")
        let upgraded = try await Self.calls.post(server, Self.calls.path("records/modify"), Self.shareSave(publicPermission: "NONE", participants: [("bob", "READ_WRITE")]), token: alice)
        #expect(participant(first(upgraded, "records"), "bob")?["acceptanceStatus"] as? String == "ACCEPTED")
        #expect(try await Self.calls.post(server, Self.calls.path("records/modify", scope: "shared"), bobNote, token: bob).status == 200)
        let seen = try await Self.calls.post(server, Self.calls.path("records/lookup"), #"{"zoneID":{"zoneName":"Notes"},"records":[{"recordName":"b1"}]}"#, token: alice)
        #expect(seen.text.contains("Bob's") && (first(seen, "records")["created"] as? [String: Any])?["userRecordName"] as? String == "bob", "\(seen.text)")

        // A public share: Carol, with the URL's short GUID, accepts as a public user.
        _ = try await Self.calls.post(server, Self.calls.path("records/modify"), Self.shareSave(publicPermission: "READ_ONLY", participants: [("bob", "READ_WRITE")]), token: alice)
        let carolAccepts = try await Self.calls.post(server, Self.calls.path("records/accept", scope: "public"), byGUID, token: carol)
        #expect(first(carolAccepts, "results")["participantType"] as? String == "PUBLIC_USER", "\(carolAccepts.text)")
        let carolReads = try await Self.calls.post(server, Self.calls.path("records/lookup", scope: "shared"), #"{\#(inZone),"records":[{"recordName":"b1"}]}"#, token: carol)
        #expect(carolReads.text.contains("Bob's"))

        // Alice removes Bob: the zone is deleted in his shared database; the public permission NONE removes Carol.
        let removed = try await Self.calls.post(server, Self.calls.path("records/modify"), Self.shareSave(publicPermission: "NONE", participants: []), token: alice)
        #expect(participant(first(removed, "records"), "bob") == nil && participant(first(removed, "records"), "carol") == nil)
        let gone = try await Self.calls.post(server, Self.calls.path("changes/database", scope: "shared"), #"{"syncToken":"\#(afterAccept)"}"#, token: bob)
        #expect(first(gone, "zones")["deleted"] as? Bool == true, "\(gone.text)")
        let lost = try await Self.calls.post(server, Self.calls.path("records/lookup", scope: "shared"), #"{\#(inZone),"records":[{"recordName":"n1"}]}"#, token: bob)
        #expect(lost.status == 404)
        let carolLost = try await Self.calls.post(server, Self.calls.path("records/lookup", scope: "shared"), #"{\#(inZone),"records":[{"recordName":"n1"}]}"#, token: carol)
        #expect(carolLost.status == 404)
        let reAccept = try await Self.calls.post(server, Self.calls.path("records/accept", scope: "public"), byGUID, token: bob)
        #expect(first(reAccept, "results")["serverErrorCode"] as? String == "ACCESS_DENIED", "\(reAccept.text)")
    }

    @Test func deletingTheShareRecordOrTheZoneEndsTheShare() async throws {
        let server = try await LiveServer(ServeOptions(dataDirectory: nil, coalescingWindow: 0, seed: 6))
        defer { server.stop() }
        let alice = server.aliceToken, bob = server.bobToken
        let inZone = #""zoneID":{"zoneName":"Notes","ownerRecordName":"alice"}"#
        func shareAndAccept() async throws -> String {
            #expect(try await Self.calls.post(server, Self.calls.path("zones/modify"), Self.makeZone, token: alice).status == 200)
            let saved = try await Self.calls.post(server, Self.calls.path("records/modify"), Self.shareSave(publicPermission: "NONE", participants: [("bob", "READ_WRITE")]), token: alice)
            let guid = try #require(first(saved, "records")["shortGUID"] as? String, "\(saved.text)")
            let accepted = try await Self.calls.post(server, Self.calls.path("records/accept", scope: "public"), #"{"shortGUIDs":[{"value":"\#(guid)"}]}"#, token: bob)
            #expect(first(accepted, "results")["participantStatus"] as? String == "ACCEPTED", "\(accepted.text)")
            #expect(try await Self.calls.post(server, Self.calls.path("zones/list", scope: "shared"), "{}", token: bob).text.contains("Notes"))
            return guid
        }
        // The share record deleted: Bob loses the zone, the short GUID is gone.
        let firstGUID = try await shareAndAccept()
        let delete = #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"forceDelete","record":{"recordName":"cloudkit.zoneshare"}}]}"#
        #expect(try await Self.calls.post(server, Self.calls.path("records/modify"), delete, token: alice).status == 200)
        #expect(!(try await Self.calls.post(server, Self.calls.path("zones/list", scope: "shared"), "{}", token: bob).text.contains("Notes")))
        #expect(try await Self.calls.post(server, Self.calls.path("records/lookup", scope: "shared"), #"{\#(inZone),"records":[{"recordName":"cloudkit.zoneshare"}]}"#, token: bob).status == 404)
        let resolved = try await Self.calls.post(server, Self.calls.path("records/resolve", scope: "public"), #"{"shortGUIDs":[{"value":"\#(firstGUID)"}]}"#, token: bob)
        #expect(first(resolved, "results")["serverErrorCode"] as? String == "NOT_FOUND", "\(resolved.text)")
        // Shared again, then the zone deleted: the same.
        let deleteZone = #"{"operations":[{"operationType":"delete","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#
        _ = try await Self.calls.post(server, Self.calls.path("zones/modify"), deleteZone, token: alice)
        let second = try await shareAndAccept()
        #expect(second != firstGUID)
        #expect(try await Self.calls.post(server, Self.calls.path("zones/modify"), deleteZone, token: alice).status == 200)
        #expect(!(try await Self.calls.post(server, Self.calls.path("zones/list", scope: "shared"), "{}", token: bob).text.contains("Notes")))
        let gone = try await Self.calls.post(server, Self.calls.path("records/accept", scope: "public"), #"{"shortGUIDs":[{"value":"\#(second)"}]}"#, token: bob)
        #expect(first(gone, "results")["serverErrorCode"] as? String == "NOT_FOUND", "\(gone.text)")
    }

    @Test func aShareSavedOnOneNodeIsAcceptedOnAnotherOfTheSameJournal() async throws {
        let journal = InMemorySharedJournal()
        let options = ServeOptions(port: 0, dataDirectory: nil, users: ["alice", "bob"], coalescingWindow: 0, seed: 7, quiet: true)
        let a = try await journal.node(options)
        let b = try await journal.node(options)
        #expect(await a.perform(Self.calls.call("zones/modify", Self.makeZone)).status == 200)
        let saved = await a.perform(Self.calls.call("records/modify", Self.shareSave(publicPermission: "NONE", participants: [("bob", "READ_WRITE")])))
        let guid = try #require(saved.items("records").first?["shortGUID"] as? String)
        // The share's row is JSON in the shared journal, and node b applies it the same way.
        try await b.waitUntilApplied(try await journal.tail())
        let accepted = await b.perform(Self.calls.call("records/accept", #"{"shortGUIDs":[{"value":"\#(guid)"}]}"#, user: "bob", scope: "public"))
        #expect(accepted.items("results").first?["participantStatus"] as? String == "ACCEPTED", "\(String(decoding: accepted.body, as: UTF8.self))")
        try await a.waitUntilApplied(try await journal.tail())
        let looked = await a.perform(Self.calls.call("records/lookup", #"{"zoneID":{"zoneName":"Notes"},"records":[{"recordName":"cloudkit.zoneshare"}]}"#))
        let bob = participant(looked.items("records").first ?? [:], "bob")
        #expect(bob?["acceptanceStatus"] as? String == "ACCEPTED", "\(String(decoding: looked.body, as: UTF8.self))")
        let export = { (host: ServerHost) in host.state.withLock { try? CheckpointFormat.encode($0.core.engine.exportState()) } }
        #expect(export(a) != nil && export(a) == export(b))
        for host in [a, b] { await host.stop() }
    }
}
