import Foundation
import SyncTestSupport
@testable import SyncServerHost
@testable import SyncServerSQLite
@testable import SyncServerHTTP
import Testing

/// Record shares over Web Services, as Apple documents them: a
/// `cloudkit.share` record saved for a root record (`forRecord`, or the
/// root's `share` reference in the same request) shares the root and every
/// record whose `parent` chain reaches it; over raw HTTP with two and three users.
@Suite struct RecordShareTests {
    static let calls = DatabaseCalls(container: "iCloud.com.example.RecordShares")
    static let makeZone = #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Lists"}}}]}"#
    static let inZone = #""zoneID":{"zoneName":"Lists","ownerRecordName":"alice"}"#

    /// A record of type `type` named `name`, with `parent` when given.
    static func record(_ name: String, _ type: String = "Item", parent: String? = nil, title: String? = nil, operation: String = "create") -> String {
        let parentKey = parent.map { #","parent":{"recordName":"\#($0)"}"# } ?? ""
        return #"{"operationType":"\#(operation)","record":{"recordName":"\#(name)","recordType":"\#(type)","fields":{"title":{"value":"\#(title ?? name)"}}\#(parentKey)}}"#
    }

    /// A share record `name` for the root `root` (by `forRecord`, unless nil).
    static func share(_ name: String, root: String?, participants: [(String, String)], publicPermission: String = "NONE") -> String {
        let list = participants.map { user, permission in
            #"{"userIdentity":{"lookupInfo":{"emailAddress":"\#(user)@syncscope.example"}},"permission":"\#(permission)","acceptanceStatus":"INVITED","type":"USER"}"#
        }.joined(separator: ",")
        let forRecord = root.map { #","forRecord":{"recordName":"\#($0)"}"# } ?? ""
        return #"{"operationType":"forceReplace","record":{"recordName":"\#(name)","recordType":"cloudkit.share","publicPermission":"\#(publicPermission)","participants":[\#(list)]\#(forRecord)}}"#
    }

    static func modify(_ operations: [String], owner: Bool = true) -> String {
        #"{\#(owner ? #""zoneID":{"zoneName":"Lists"}"# : inZone),"operations":[\#(operations.joined(separator: ","))]}"#
    }


    func list(_ answer: RawHTTP.Answer, _ key: String) -> [[String: Any]] { answer.json[key] as? [[String: Any]] ?? [] }
    func names(_ records: [[String: Any]]) -> Set<String> { Set(records.compactMap { $0["recordName"] as? String }) }
    /// A share refused before anything is applied: the whole request fails with `code`.
    func refused(_ answer: RawHTTP.Answer, _ code: String) -> Bool { answer.json["serverErrorCode"] as? String == code }

    /// Alice's zone: the list `groceries` with `milk` and, under it, `oat`; and `diary`, not shared.
    func makeLists(_ server: LiveServer) async throws {
        #expect(try await Self.calls.post(server, Self.calls.path("zones/modify"), Self.makeZone, token: server.aliceToken).status == 200)
        let records = Self.modify([
            Self.record("groceries", "List"), Self.record("milk", parent: "groceries"), Self.record("oat", parent: "milk"), Self.record("diary", "List"),
        ])
        let saved = try await Self.calls.post(server, Self.calls.path("records/modify"), records, token: server.aliceToken)
        #expect(saved.status == 200, "\(saved.text)")
        let milk = list(saved, "records").first { $0["recordName"] as? String == "milk" }
        #expect((milk?["parent"] as? [String: Any])?["recordName"] as? String == "groceries", "\(saved.text)")
    }

    @Test func aRecordShareSharesItsHierarchyOnlyWithTwoUsers() async throws {
        let server = try await LiveServer(ServeOptions(dataDirectory: nil, users: ["alice", "bob", "carol"], coalescingWindow: 0, seed: 11))
        defer { server.stop() }
        let alice = server.aliceToken, bob = server.bobToken
        let carol = try #require(server.host.users.first { $0.name == "carol" }?.webAuthToken)
        try await makeLists(server)

        // Alice shares the list with Bob (READ_WRITE) and Carol (READ_ONLY).
        let saved = try await Self.calls.post(server, Self.calls.path("records/modify"), Self.modify([Self.share("share-groceries", root: "groceries", participants: [("bob", "READ_WRITE"), ("carol", "READ_ONLY")])]), token: alice)
        let share = try #require(list(saved, "records").first, "\(saved.text)")
        #expect(share["recordType"] as? String == "cloudkit.share" && share["recordName"] as? String == "share-groceries")
        let guid = try #require(share["shortGUID"] as? String)
        #expect((share["url"] as? String)?.hasSuffix("/share/\(guid)") == true && (share["participants"] as? [Any])?.count == 3)
        #expect(share["forRecord"] == nil)
        // The root now points at its share; the owner's zone changes carry the share record with its keys.
        let root = list(try await Self.calls.post(server, Self.calls.path("records/lookup"), #"{"zoneID":{"zoneName":"Lists"},"records":[{"recordName":"groceries"}]}"#, token: alice), "records").first
        #expect((root?["share"] as? [String: Any])?["recordName"] as? String == "share-groceries", "\(String(describing: root))")
        let ownerChanges = try await Self.calls.post(server, Self.calls.path("changes/zone"), #"{"zones":[{"zoneID":{"zoneName":"Lists"}}]}"#, token: alice)
        let ownerRecords = (list(ownerChanges, "zones").first?["records"] as? [[String: Any]]) ?? []
        #expect(names(ownerRecords) == ["groceries", "milk", "oat", "diary", "share-groceries"], "\(ownerChanges.text)")
        #expect(ownerRecords.first { $0["recordName"] as? String == "share-groceries" }?["shortGUID"] as? String == guid)
        // Apple's records/query of cloudkit.share in the owner's zone finds it, with its keys.
        let query = #"{"zoneID":{"zoneName":"Lists"},"query":{"recordType":"cloudkit.share"}}"#
        let shares = list(try await Self.calls.post(server, Self.calls.path("records/query"), query, token: alice), "records")
        #expect(shares.count == 1 && shares.first?["shortGUID"] as? String == guid && (shares.first?["owner"] as? [String: Any])?["participantId"] as? String == "alice")

        // Bob resolves with shouldFetchRootRecord: the root comes with the desired keys.
        let byGUID = #"{"shortGUIDs":[{"value":"\#(guid)","shouldFetchRootRecord":true,"rootRecordDesiredKeys":["title"]}]}"#
        let resolved = list(try await Self.calls.post(server, Self.calls.path("records/resolve", scope: "public"), byGUID, token: bob), "results").first
        #expect((resolved?["rootRecord"] as? [String: Any])?["recordName"] as? String == "groceries", "\(String(describing: resolved))")
        #expect(resolved?["participantStatus"] as? String == "PENDING" && resolved?["participantPermission"] as? String == "READ_WRITE")
        let without = list(try await Self.calls.post(server, Self.calls.path("records/resolve", scope: "public"), #"{"shortGUIDs":[{"value":"\#(guid)"}]}"#, token: bob), "results").first
        #expect(without?["rootRecord"] == nil && without?["share"] != nil)

        // Bob accepts: the zone appears in his shared database, holding only the hierarchy and its share.
        let before = try #require(try await Self.calls.post(server, Self.calls.path("changes/database", scope: "shared"), "{}", token: bob).json["syncToken"] as? String)
        let accepted = list(try await Self.calls.post(server, Self.calls.path("records/accept", scope: "public"), byGUID, token: bob), "results").first
        #expect(accepted?["participantStatus"] as? String == "ACCEPTED" && (accepted?["rootRecord"] as? [String: Any])?["recordName"] as? String == "groceries")
        let zones = try await Self.calls.post(server, Self.calls.path("changes/database", scope: "shared"), #"{"syncToken":"\#(before)"}"#, token: bob)
        #expect(((list(zones, "zones").first?["zoneID"] as? [String: Any])?["zoneName"] as? String) == "Lists", "\(zones.text)")
        // Accepting changes the share record (its participant list), as Apple's does: the owner's
        // next changes/zone brings only the share record again, with a new change tag and Bob ACCEPTED.
        let ownerToken = try #require(list(ownerChanges, "zones").first?["syncToken"] as? String)
        let afterAcceptOwner = try await Self.calls.post(server, Self.calls.path("changes/zone"), #"{"zones":[{"zoneID":{"zoneName":"Lists"},"syncToken":"\#(ownerToken)"}]}"#, token: alice)
        let refetched = (list(afterAcceptOwner, "zones").first?["records"] as? [[String: Any]]) ?? []
        #expect(names(refetched) == ["share-groceries"], "\(afterAcceptOwner.text)")
        let oldTag = try #require(share["recordChangeTag"] as? String)
        let newTag = try #require(refetched.first?["recordChangeTag"] as? String)
        #expect(newTag != oldTag)
        let bobInList = (refetched.first?["participants"] as? [[String: Any]])?.first { ($0["userIdentity"] as? [String: Any])?["userRecordName"] as? String == "bob" }
        #expect(bobInList?["acceptanceStatus"] as? String == "ACCEPTED", "\(afterAcceptOwner.text)")
        let carolInList = (refetched.first?["participants"] as? [[String: Any]])?.first { ($0["userIdentity"] as? [String: Any])?["userRecordName"] as? String == "carol" }
        #expect(carolInList?["acceptanceStatus"] as? String == "PENDING")
        let bobChanges = try await Self.calls.post(server, Self.calls.path("changes/zone", scope: "shared"), #"{"zones":[{\#(Self.inZone)}]}"#, token: bob)
        let bobRecords = (list(bobChanges, "zones").first?["records"] as? [[String: Any]]) ?? []
        #expect(names(bobRecords) == ["groceries", "milk", "oat", "share-groceries"], "\(bobChanges.text)")
        let bobsShare = bobRecords.first { $0["recordName"] as? String == "share-groceries" }
        #expect((bobsShare?["currentUserParticipant"] as? [String: Any])?["acceptanceStatus"] as? String == "ACCEPTED")
        let zoneToken = try #require(list(bobChanges, "zones").first?["syncToken"] as? String)
        let diary = try await Self.calls.post(server, Self.calls.path("records/lookup", scope: "shared"), #"{\#(Self.inZone),"records":[{"recordName":"diary"},{"recordName":"oat"}]}"#, token: bob)
        #expect(list(diary, "records").first?["serverErrorCode"] as? String == "NOT_FOUND" && list(diary, "records").last?["recordName"] as? String == "oat", "\(diary.text)")
        let items = list(try await Self.calls.post(server, Self.calls.path("records/query", scope: "shared"), #"{\#(Self.inZone),"query":{"recordType":"List"}}"#, token: bob), "records")
        #expect(names(items) == ["groceries"])

        // READ_WRITE: Bob adds an item under the list and Alice sees it; outside the hierarchy he may not write.
        let bobItem = try await Self.calls.post(server, Self.calls.path("records/modify", scope: "shared"), Self.modify([Self.record("bread", parent: "groceries")], owner: false), token: bob)
        #expect(bobItem.status == 200, "\(bobItem.text)")
        let seen = try await Self.calls.post(server, Self.calls.path("records/lookup"), #"{"zoneID":{"zoneName":"Lists"},"records":[{"recordName":"bread"}]}"#, token: alice)
        #expect((list(seen, "records").first?["created"] as? [String: Any])?["userRecordName"] as? String == "bob", "\(seen.text)")
        let loose = try await Self.calls.post(server, Self.calls.path("records/modify", scope: "shared"), Self.modify([Self.record("loose")], owner: false), token: bob)
        #expect(loose.status == 403 || list(loose, "records").first?["serverErrorCode"] as? String == "ACCESS_DENIED", "\(loose.text)")
        let overDiary = try await Self.calls.post(server, Self.calls.path("records/modify", scope: "shared"), Self.modify([Self.record("diary", "List", operation: "forceReplace")], owner: false), token: bob)
        #expect(list(overDiary, "records").first?["serverErrorCode"] as? String == "ACCESS_DENIED", "\(overDiary.text)")
        let bobShares = try await Self.calls.post(server, Self.calls.path("records/modify", scope: "shared"), Self.modify([Self.share("share-groceries", root: nil, participants: [])], owner: false), token: bob)
        #expect(bobShares.status == 403 || list(bobShares, "records").first?["serverErrorCode"] as? String == "ACCESS_DENIED", "\(bobShares.text)")
        // Bob's next zone changes bring his own item; Alice's new record outside the share does not reach him.
        let quiet = try #require(try await Self.calls.post(server, Self.calls.path("changes/database", scope: "shared"), "{}", token: bob).json["syncToken"] as? String)
        _ = try await Self.calls.post(server, Self.calls.path("records/modify"), Self.modify([Self.record("secret", "List")]), token: alice)
        // A change outside his hierarchy does not mark the zone changed in Bob's shared database.
        let untouched = try await Self.calls.post(server, Self.calls.path("changes/database", scope: "shared"), #"{"syncToken":"\#(quiet)"}"#, token: bob)
        #expect(list(untouched, "zones").isEmpty, "\(untouched.text)")
        let next = try await Self.calls.post(server, Self.calls.path("changes/zone", scope: "shared"), #"{"zones":[{\#(Self.inZone),"syncToken":"\#(zoneToken)"}]}"#, token: bob)
        #expect(names((list(next, "zones").first?["records"] as? [[String: Any]]) ?? []) == ["bread"], "\(next.text)")

        // READ_ONLY: Carol accepts and reads, and may not write.
        _ = try await Self.calls.post(server, Self.calls.path("records/accept", scope: "public"), byGUID, token: carol)
        let carolReads = try await Self.calls.post(server, Self.calls.path("records/lookup", scope: "shared"), #"{\#(Self.inZone),"records":[{"recordName":"bread"}]}"#, token: carol)
        #expect(list(carolReads, "records").first?["recordName"] as? String == "bread", "\(carolReads.text)")
        let carolWrites = try await Self.calls.post(server, Self.calls.path("records/modify", scope: "shared"), Self.modify([Self.record("cake", parent: "groceries")], owner: false), token: carol)
        #expect(carolWrites.status == 403 || list(carolWrites, "records").first?["serverErrorCode"] as? String == "ACCESS_DENIED", "\(carolWrites.text)")

        // One share per hierarchy and per zone (CKError.alreadyShared, answered EXISTS).
        for (name, root) in [("share-milk", "milk"), ("share-oat", "oat")] {
            let again = try await Self.calls.post(server, Self.calls.path("records/modify"), Self.modify([Self.share(name, root: root, participants: [])]), token: alice)
            #expect(again.status == 409 && refused(again, "EXISTS"), "\(again.text)")
        }
        let zoneWide = try await Self.calls.post(server, Self.calls.path("records/modify"), Self.modify([Self.share("cloudkit.zoneshare", root: nil, participants: [])]), token: alice)
        #expect(zoneWide.status == 409 && refused(zoneWide, "EXISTS"), "\(zoneWide.text)")
        let shorthand = try await Self.calls.post(server, Self.calls.path("zones/share"), #"{"zoneID":{"zoneName":"Lists"},"operationType":"share","participants":["carol"]}"#, token: alice)
        #expect(shorthand.status == 409 && refused(shorthand, "EXISTS"), "\(shorthand.text)")
        let noRoot = try await Self.calls.post(server, Self.calls.path("records/modify"), Self.modify([Self.share("share-nothing", root: nil, participants: [])]), token: alice)
        #expect(noRoot.status == 400, "\(noRoot.text)")

        // Alice removes Bob: the zone is deleted in his shared database; Carol keeps it.
        let removed = try await Self.calls.post(server, Self.calls.path("records/modify"), Self.modify([Self.share("share-groceries", root: nil, participants: [("carol", "READ_ONLY")])]), token: alice)
        #expect(removed.status == 200 && (list(removed, "records").first?["participants"] as? [Any])?.count == 2, "\(removed.text)")
        let afterAccept = try #require(zones.json["syncToken"] as? String)
        let gone = try await Self.calls.post(server, Self.calls.path("changes/database", scope: "shared"), #"{"syncToken":"\#(afterAccept)"}"#, token: bob)
        #expect(list(gone, "zones").first?["deleted"] as? Bool == true, "\(gone.text)")
        #expect(try await Self.calls.post(server, Self.calls.path("records/lookup", scope: "shared"), #"{\#(Self.inZone),"records":[{"recordName":"milk"}]}"#, token: bob).status == 404)
        #expect(try await Self.calls.post(server, Self.calls.path("records/lookup", scope: "shared"), #"{\#(Self.inZone),"records":[{"recordName":"milk"}]}"#, token: carol).status == 200)

        // Deleting the share record ends the share: Carol loses the zone, the root loses its share reference.
        let delete = Self.modify([#"{"operationType":"forceDelete","record":{"recordName":"share-groceries"}}"#])
        #expect(try await Self.calls.post(server, Self.calls.path("records/modify"), delete, token: alice).status == 200)
        #expect(try await Self.calls.post(server, Self.calls.path("records/lookup", scope: "shared"), #"{\#(Self.inZone),"records":[{"recordName":"milk"}]}"#, token: carol).status == 404)
        let unshared = list(try await Self.calls.post(server, Self.calls.path("records/lookup"), #"{"zoneID":{"zoneName":"Lists"},"records":[{"recordName":"groceries"}]}"#, token: alice), "records").first
        #expect(unshared?["share"] == nil && unshared?["recordName"] as? String == "groceries")
        let stale = try await Self.calls.post(server, Self.calls.path("records/resolve", scope: "public"), byGUID, token: carol)
        #expect(list(stale, "results").first?["serverErrorCode"] as? String == "NOT_FOUND")
    }

    @Test func aShareSavedWithItsRootThroughTheRootsShareReference() async throws {
        let server = try await LiveServer(ServeOptions(dataDirectory: nil, coalescingWindow: 0, seed: 12))
        defer { server.stop() }
        #expect(try await Self.calls.post(server, Self.calls.path("zones/modify"), Self.makeZone, token: server.aliceToken).status == 200)
        // CKShare(rootRecord:) saved with its new root in one request: the root names its share.
        let root = #"{"operationType":"create","record":{"recordName":"trip","recordType":"List","fields":{},"share":{"recordName":"share-trip"}}}"#
        let saved = try await Self.calls.post(server, Self.calls.path("records/modify"), Self.modify([root, Self.record("tent", parent: "trip"), Self.share("share-trip", root: nil, participants: [("bob", "READ_ONLY")])]), token: server.aliceToken)
        #expect(saved.status == 200, "\(saved.text)")
        let guid = try #require(list(saved, "records").last?["shortGUID"] as? String, "\(saved.text)")
        #expect((list(saved, "records").first?["share"] as? [String: Any])?["recordName"] as? String == "share-trip", "\(saved.text)")
        let accepted = try await Self.calls.post(server, Self.calls.path("records/accept", scope: "public"), #"{"shortGUIDs":[{"value":"\#(guid)","shouldFetchRootRecord":true}]}"#, token: server.bobToken)
        #expect((list(accepted, "results").first?["rootRecord"] as? [String: Any])?["recordName"] as? String == "trip", "\(accepted.text)")
        let tent = try await Self.calls.post(server, Self.calls.path("records/lookup", scope: "shared"), #"{\#(Self.inZone),"records":[{"recordName":"tent"}]}"#, token: server.bobToken)
        #expect((list(tent, "records").first?["parent"] as? [String: Any])?["recordName"] as? String == "trip", "\(tent.text)")
        // A parent chain never loops, and a parent is in the record's zone.
        let loop = try await Self.calls.post(server, Self.calls.path("records/modify"), Self.modify([Self.record("trip", "List", parent: "tent", operation: "forceReplace")]), token: server.aliceToken)
        #expect(loop.status == 400 || list(loop, "records").first?["serverErrorCode"] as? String == "BAD_REQUEST", "\(loop.text)")
    }

    @Test func theShareURLAnswersWhatItIsAndHowToAcceptWithNoToken() async throws {
        let server = try await LiveServer(ServeOptions(dataDirectory: nil, coalescingWindow: 0, seed: 14))
        defer { server.stop() }
        try await makeLists(server)
        let saved = try await Self.calls.post(server, Self.calls.path("records/modify"), Self.modify([Self.share("share-groceries", root: "groceries", participants: [("bob", "READ_ONLY")])]), token: server.aliceToken)
        let share = try #require(list(saved, "records").first)
        let url = try #require((share["url"] as? String).flatMap(URLComponents.init(string:)), "\(saved.text)")
        // The URL itself, fetched with no credentials.
        let page = try await server.raw.exchange(RawHTTP.request("GET", url.percentEncodedPath))
        #expect(page.status == 200, "\(page.text)")
        #expect(page.json["shortGUID"] as? String == share["shortGUID"] as? String && page.json["kind"] as? String == "record")
        #expect(page.json["rootRecordName"] as? String == "groceries" && page.json["publicPermission"] as? String == "NONE")
        #expect((page.json["zoneID"] as? [String: Any])?["ownerRecordName"] as? String == "alice")
        #expect((page.json["ownerIdentity"] as? [String: Any])?["userRecordName"] as? String == "alice")
        #expect(page.json["participants"] == nil && !page.text.contains("bob") && !page.text.contains(server.aliceToken), "\(page.text)")
        let acceptPath = try #require(page.json["acceptPath"] as? String)
        #expect(acceptPath == "/database/1/\(Self.calls.container)/development/public/records/accept")
        // What the page says to send, sent by the invitee, accepts the share.
        let body = try JSONSerialization.data(withJSONObject: try #require(page.json["requestBody"]))
        let accepted = try await Self.calls.post(server, acceptPath, String(decoding: body, as: UTF8.self), token: server.bobToken)
        #expect(list(accepted, "results").first?["participantStatus"] as? String == "ACCEPTED", "\(accepted.text)")
        #expect((list(accepted, "results").first?["rootRecord"] as? [String: Any])?["recordName"] as? String == "groceries")
        // A zone-wide share's page; an unknown short GUID is 404.
        #expect(try await Self.calls.post(server, Self.calls.path("zones/modify"), #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Other"}}}]}"#, token: server.aliceToken).status == 200)
        let zoneShare = #"{"zoneID":{"zoneName":"Other"},"operations":[\#(Self.share("cloudkit.zoneshare", root: nil, participants: [], publicPermission: "READ_ONLY"))]}"#
        let zoneURL = try #require((list(try await Self.calls.post(server, Self.calls.path("records/modify"), zoneShare, token: server.aliceToken), "records").first?["url"] as? String).flatMap(URLComponents.init(string:)))
        let zonePage = try await server.raw.exchange(RawHTTP.request("GET", zoneURL.percentEncodedPath))
        #expect(zonePage.json["kind"] as? String == "zone" && zonePage.json["rootRecordName"] == nil && zonePage.json["publicPermission"] as? String == "READ_ONLY", "\(zonePage.text)")
        let unknown = try await server.raw.exchange(RawHTTP.request("GET", "/share/nope"))
        #expect(unknown.status == 404 && unknown.json["serverErrorCode"] as? String == "NOT_FOUND", "\(unknown.text)")
    }

    @Test func aRecordShareSavedOnOneNodeHoldsOnAnotherOfTheSameJournal() async throws {
        let journal = InMemorySharedJournal()
        let options = ServeOptions(port: 0, dataDirectory: nil, users: ["alice", "bob"], coalescingWindow: 0, seed: 15, quiet: true)
        let a = try await journal.node(options)
        let b = try await journal.node(options)
        #expect(await a.perform(Self.calls.call("zones/modify", Self.makeZone)).status == 200)
        #expect(await a.perform(Self.calls.call("records/modify", Self.modify([Self.record("groceries", "List"), Self.record("milk", parent: "groceries"), Self.record("diary", "List")]))).status == 200)
        let saved = await a.perform(Self.calls.call("records/modify", Self.modify([Self.share("share-groceries", root: "groceries", participants: [("bob", "READ_WRITE")])])))
        let guid = try #require(saved.items("records").first?["shortGUID"] as? String)
        // The rows with parents and the share are JSON in the shared journal; node b applies them the same way.
        try await b.waitUntilApplied(try await journal.tail())
        let accepted = await b.perform(Self.calls.call("records/accept", #"{"shortGUIDs":[{"value":"\#(guid)"}]}"#, user: "bob", scope: "public"))
        #expect(accepted.items("results").first?["participantStatus"] as? String == "ACCEPTED")
        #expect(await b.perform(Self.calls.call("records/modify", Self.modify([Self.record("bread", parent: "milk")], owner: false), user: "bob", scope: "shared")).status == 200)
        try await a.waitUntilApplied(try await journal.tail())
        let seen = await a.perform(Self.calls.call("changes/zone", #"{"zones":[{\#(Self.inZone)}]}"#, user: "bob", scope: "shared"))
        #expect(names((seen.items("zones").first?["records"] as? [[String: Any]]) ?? []) == ["groceries", "milk", "bread", "share-groceries"])
        let export = { (host: ServerHost) in host.state.withLock { try? CheckpointFormat.encode($0.core.engine.exportState()) } }
        #expect(export(a) != nil && export(a) == export(b))
        for host in [a, b] { await host.stop() }
    }

    @Test func aRecordShareSurvivesARestartFromTheJournalAndFromACheckpoint() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("record-shares-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let options = ServeOptions(dataDirectory: directory, coalescingWindow: 0, seed: 13, quiet: true)
        func bobSees(_ host: ServerHost) async -> Set<String> {
            let answer = await host.perform(Self.calls.call("changes/zone", #"{"zones":[{\#(Self.inZone)}]}"#, user: "bob", scope: "shared"))
            return names((answer.items("zones").first?["records"] as? [[String: Any]]) ?? [])
        }
        // The share record as the owner sees it: acceptance changed its tag, and replay gives the same tag.
        func shareRecord(_ host: ServerHost) async -> [String: Any]? {
            await host.perform(Self.calls.call("records/lookup", #"{"zoneID":{"zoneName":"Lists"},"records":[{"recordName":"share-groceries"}]}"#)).items("records").first
        }
        var guid = ""
        var acceptedTag = ""
        var acceptedStamp: Double?
        do {
            // No clean stop: the next start replays the journal (the rows with parents and the share are JSON).
            let host = try await ServerHost.start(options: options)
            #expect(await host.perform(Self.calls.call("zones/modify", Self.makeZone)).status == 200)
            let records = Self.modify([Self.record("groceries", "List"), Self.record("milk", parent: "groceries"), Self.record("diary", "List")])
            #expect(await host.perform(Self.calls.call("records/modify", records)).status == 200)
            let saved = await host.perform(Self.calls.call("records/modify", Self.modify([Self.share("share-groceries", root: "groceries", participants: [("bob", "READ_WRITE")])])))
            guid = try #require(saved.items("records").first?["shortGUID"] as? String)
            let accepted = await host.perform(Self.calls.call("records/accept", #"{"shortGUIDs":[{"value":"\#(guid)"}]}"#, user: "bob", scope: "public"))
            #expect(accepted.items("results").first?["participantStatus"] as? String == "ACCEPTED")
            #expect(await bobSees(host) == ["groceries", "milk", "share-groceries"])
            acceptedTag = try #require(await shareRecord(host)?["recordChangeTag"] as? String)
            #expect(acceptedTag != saved.items("records").first?["recordChangeTag"] as? String)
            acceptedStamp = (await shareRecord(host)?["modified"] as? [String: Any])?["timestamp"] as? Double
            #expect(acceptedStamp != nil)
        }
        do {
            let host = try await ServerHost.start(options: options)
            #expect(await bobSees(host) == ["groceries", "milk", "share-groceries"])
            #expect(await shareRecord(host)?["recordChangeTag"] as? String == acceptedTag)
            #expect((await shareRecord(host)?["modified"] as? [String: Any])?["timestamp"] as? Double == acceptedStamp)
            await host.stop()  // a clean stop writes a checkpoint
        }
        let host = try await ServerHost.start(options: options)
        defer { Task { await host.stop() } }
        #expect(await bobSees(host) == ["groceries", "milk", "share-groceries"])
        #expect(await shareRecord(host)?["recordChangeTag"] as? String == acceptedTag)
        let again = await host.perform(Self.calls.call("records/modify", Self.modify([Self.share("share-milk", root: "milk", participants: [])])))
        #expect(again.status == 409, "\(String(decoding: again.body, as: UTF8.self))")
        let resolved = await host.perform(Self.calls.call("records/resolve", #"{"shortGUIDs":[{"value":"\#(guid)"}]}"#, user: "bob", scope: "public"))
        #expect(resolved.items("results").first?["participantStatus"] as? String == "ACCEPTED")
    }
}
