import Foundation
import SyncCore
import SyncPostgres
import SyncServer
@testable import SyncServerHost
@testable import SyncServerSQLite
@testable import SyncServerHTTP
import SyncTestSupport
import Testing

/// The bytes a shared journal keeps for a call: one encoder, one decoder.
@Suite struct JournaledCallTests {
    @Test func aCallRoundTripsWithAndWithoutItsOrigin() throws {
        let calls = [
            APICall(method: "POST", path: "/database/1/C/development/private/records/modify", body: Data(#"{"a":"é"}"#.utf8), user: "alice", deviceID: "phone"),
            APICall(method: "GET", path: "/admin/1/C/development/export", isServerAdmin: true),
            APICall(method: "POST", path: "/internal/addUser", body: Data("{}".utf8), isServerCall: true),
        ]
        for call in calls {
            for origin in [nil, JournaledCall.Origin(node: "node-a", request: .max)] {
                let journaled = JournaledCall(call: call, origin: origin)
                #expect(try JournaledCall.decode(journaled.encoded()) == journaled)
            }
        }
        // Query parameters shape answers only: they are not kept.
        var withParameters = calls[0]
        withParameters.parameters = ["getCurrentSyncToken": "true"]
        #expect(try JournaledCall.decode(JournaledCall(call: withParameters).encoded()).call == calls[0])
    }

    @Test func damagedBytesAreRefusedWithAReason() throws {
        let bytes = JournaledCall(call: APICall(method: "POST", path: "/p", body: Data("{}".utf8), user: "u")).encoded()
        for cut in [0, 3, 5, bytes.count - 1] {
            #expect(throws: JournaledCall.Malformed.self) { try JournaledCall.decode(bytes.prefix(cut)) }
        }
        var otherVersion = bytes
        otherVersion[3] = 9
        do {
            _ = try JournaledCall.decode(otherVersion)
            Issue.record("a call of another format version was read")
        } catch {
            #expect(error.description.contains("format version 9"))
        }
        #expect(throws: JournaledCall.Malformed.self) { try JournaledCall.decode(bytes + Data([0])) }
    }
}

/// Nodes in this process on one PostgreSQL database: their states agree byte
/// for byte after concurrent writes on both (pushes included), and a node
/// started later restores the checkpoint the others stored and agrees too.
@Suite(.serialized, .enabled(if: PostgresCluster.isAvailable || PostgresCluster.isCI, Comment(rawValue: PostgresCluster.notInstalled)))
struct SharedJournalTests {
    let container = "iCloud.com.example.Shared"

    func call(_ operation: String, _ json: String, user: String = "alice", device: String? = nil) -> APICall {
        APICall(method: "POST", path: "/database/1/\(container)/development/private/\(operation)", body: Data(json.utf8), user: user, deviceID: device)
    }

    func save(_ name: String, _ value: Int) -> APICall {
        call("records/modify", #"{"zoneID":{"zoneName":"Z"},"operations":[{"operationType":"forceReplace","record":{"recordName":"\#(name)","recordType":"Note","fields":{"n":{"value":\#(value)}}}}]}"#)
    }

    /// The whole state, devices and waiting notifications included. With
    /// `reseeding` (as a checkpoint takes it) the engine's and the push layer's
    /// random choices are in it too, and restart from there: call it once per host.
    func stateBytes(_ host: ServerHost, reseeding: Bool = false) throws -> Data {
        try host.state.withLock { state in try stateBytes(state.core, reseeding: reseeding) }
    }

    func stateBytes(_ core: ServerCore, reseeding: Bool = false) throws -> Data {
        var file = reseeding ? core.engine.checkpointState() : core.engine.exportState()
        file.push = core.push.exportState(includingDevices: true, reseeding: reseeding)
        return try CheckpointFormat.encode(file)
    }

    /// The `modified.timestamp` of the first record in a records/modify or records/lookup answer.
    func modifiedTime(_ answer: APIAnswer) throws -> Int64 {
        let object = try JSONSerialization.jsonObject(with: answer.body) as? [String: Any]
        let record = try #require((object?["records"] as? [[String: Any]])?.first, "\(String(decoding: answer.body, as: UTF8.self))")
        return try #require(((record["modified"] as? [String: Any])?["timestamp"] as? NSNumber)?.int64Value)
    }

    @Test func nodesAgreeByteForByteAndALateNodeRestoresTheCheckpoint() async throws {
        try await PostgresCluster.withCluster { cluster in
            try await cluster.createDatabase("shared")
            let url = try PostgresStoreURL(parsing: cluster.url(database: "shared"), environment: [:])
            #expect(try await PostgresJournalStore.migrate(url) == .created)
            let options = ServeOptions(port: 0, dataDirectory: nil, users: ["alice"], coalescingWindow: 0, quiet: true, checkpointEvery: 7)
            let a = try await ServerHost.start(options: options, store: url)
            let b = try await ServerHost.start(options: options, store: url)
            defer {
                Task {
                    await a.stop()
                    await b.stop()
                }
            }
            #expect(a.users.map(\.webAuthToken) == b.users.map(\.webAuthToken))
            #expect(await a.perform(call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Z"}}}]}"#)).status == 200)
            let subscribed = await b.perform(call(
                "subscriptions/modify", #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"all","subscriptionType":"database"}}]}"#))
            #expect(subscribed.status == 200)
            let device = await a.perform(APICall(
                method: "POST", path: "/device/1/\(container)/development/tokens/create", body: Data(#"{"apnsEnvironment":"development"}"#.utf8), user: "alice"))
            #expect(device.status == 200)
            let deviceID = try #require((try JSONSerialization.jsonObject(with: device.body) as? [String: Any])?["apnsToken"] as? String)

            // Writers on both nodes at once, overlapping names: one order for all.
            await writeFromBoth(a, b, save)
            let store = try #require(a.postgresStore)
            let tail = try await store.tail()
            try await a.waitUntilApplied(tail)
            try await b.waitUntilApplied(tail)
            #expect(try stateBytes(a) == stateBytes(b))
            // Both delivered the same notifications into the device's queue.
            let waiting = a.state.withLock { state in (try? state.core.push.unacknowledgedNotifications(for: deviceID).count) ?? -1 }
            #expect(waiting > 0)

            // The checkpoint the nodes stored (every 7 rows) is where a late node starts.
            let checkpoint = try #require(try await store.checkpoint())
            #expect(checkpoint.throughPosition % 7 == 0 && checkpoint.throughPosition > 0)
            let late = try await ServerHost.start(options: options, store: url)
            defer { Task { await late.stop() } }
            #expect(late.startupReport.contains("restored the checkpoint"), "\(late.startupReport)")
            try await late.waitUntilApplied(try await store.tail())
            try await a.waitUntilApplied(try await store.tail())
            #expect(try stateBytes(late) == stateBytes(a))
            let end = try await store.tail()
            for host in [a, b, late] { try await host.waitUntilApplied(end) }
            // Their random choices agree too (taken once per node: it restarts them).
            let reseeded = try [a, b, late].map { try stateBytes($0, reseeding: true) }
            #expect(reseeded[0] == reseeded[1] && reseeded[0] == reseeded[2])
            // A read on the late node sees a write just answered by another.
            #expect(await b.perform(save("fresh", 1)).status == 200)
            let read = await late.perform(call("records/lookup", #"{"zoneID":{"zoneName":"Z"},"records":[{"recordName":"fresh"}]}"#))
            #expect(String(decoding: read.body, as: UTF8.self).contains(#""recordChangeTag""#), "\(String(decoding: read.body, as: UTF8.self))")
        }
    }

    /// Two polls of one device open at once on two nodes: each waiting
    /// notification is answered by one of them only. A poll whose node dies
    /// while writing (its claim is never finished) holds the notification
    /// until the claim's lease runs out; then a poll on the other node gets it.
    /// An answer not written whole gives the notification back at once.
    @Test func aNotificationIsHandedToOnePollWhicheverNodeItReaches() async throws {
        try await PostgresCluster.withCluster { cluster in
            try await cluster.createDatabase("claims")
            let url = try PostgresStoreURL(parsing: cluster.url(database: "claims"), environment: [:])
            #expect(try await PostgresJournalStore.migrate(url) == .created)
            let lease: Milliseconds = 1500
            let options = ServeOptions(port: 0, dataDirectory: nil, users: ["alice"], coalescingWindow: 0, quiet: true, offlineAfter: lease)
            let a = try await ServerHost.start(options: options, store: url)
            let b = try await ServerHost.start(options: options, store: url)
            defer {
                Task {
                    await a.stop()
                    await b.stop()
                }
            }
            #expect(await a.perform(call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Z"}}}]}"#)).status == 200)
            #expect(await b.perform(call(
                "subscriptions/modify", #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"all","subscriptionType":"database"}}]}"#)).status == 200)
            let device = await a.perform(APICall(
                method: "POST", path: "/device/1/\(container)/development/tokens/create", body: Data(#"{"apnsEnvironment":"development"}"#.utf8), user: "alice"))
            let deviceID = try #require((try JSONSerialization.jsonObject(with: device.body) as? [String: Any])?["apnsToken"] as? String)
            for i in 0..<4 { #expect(await (i % 2 == 0 ? a : b).perform(save("n\(i)", i)).status == 200) }
            let store = try #require(a.postgresStore)
            let tail = try await store.tail()
            try await a.waitUntilApplied(tail)
            try await b.waitUntilApplied(tail)
            let waiting = a.state.withLock { state in ((try? state.core.push.unacknowledgedNotifications(for: deviceID)) ?? []).map(\.notificationID) }
            try #require(waiting.count >= 3, "\(waiting)")

            // An empty lastNotificationID acknowledges nothing: every poll sees the whole queue.
            func poll(_ host: ServerHost, _ timeout: Duration = .seconds(5)) async -> ServerHost.PollResult {
                await host.poll(deviceID: deviceID, user: "alice", timeout: timeout, lastNotificationID: "", presence: nil)
            }
            async let onA = await poll(a)
            async let onB = await poll(b)
            let (first, second) = await (onA, onB)
            #expect(first.notificationIDs.count == 1 && second.notificationIDs.count == 1)
            #expect(Set(first.notificationIDs).isDisjoint(with: second.notificationIDs), "\(first.notificationIDs) \(second.notificationIDs)")
            #expect(Set(first.notificationIDs + second.notificationIDs).isSubset(of: waiting))

            // Neither answer is finished (as if both nodes died writing): a third poll, on either node, gets neither.
            let third = await poll(a)
            #expect(third.notificationIDs.count == 1)
            #expect(Set(third.notificationIDs).isDisjoint(with: first.notificationIDs + second.notificationIDs))
            a.finishPoll(third, written: true)

            // The first answer was not written whole: its notification is handed out again (on the other node).
            a.finishPoll(first, written: false)
            let deadline = ContinuousClock.now + .seconds(30)
            var again: [String] = []
            while again != first.notificationIDs, ContinuousClock.now < deadline {
                let next = await poll(b, .milliseconds(200))
                if !next.notificationIDs.isEmpty { b.finishPoll(next, written: false) }
                again = next.notificationIDs
                #expect(Set(again).isDisjoint(with: second.notificationIDs), "held by a live claim: \(again)")
            }
            #expect(again == first.notificationIDs)

            // The second poll's node "died" mid-write: after its lease, a poll on the other node gets it.
            // Whatever else these polls get (the first answer's notification, given back above, may come
            // before it in the queue) stays in flight, so the next poll reaches past it.
            let claimedAt = ContinuousClock.now
            var redelivered: [String] = []
            while redelivered != second.notificationIDs, ContinuousClock.now < claimedAt + .seconds(30) {
                redelivered = await poll(a, .milliseconds(200)).notificationIDs
            }
            #expect(redelivered == second.notificationIDs)
        }
    }

    /// A journal written in call format 1 (JSON bodies) by an older node and
    /// then in format 2 (records/modify bodies in binary) reads back whole:
    /// a node started on it upgrades the format, writes binary rows, and a
    /// node started later replays the mixed journal to the same state.
    @Test func aJournalOfJSONAndBinaryRowsReplaysOnEveryNode() async throws {
        try await PostgresCluster.withCluster { cluster in
            try await cluster.createDatabase("mixed")
            let url = try PostgresStoreURL(parsing: cluster.url(database: "mixed"), environment: [:])
            #expect(try await PostgresJournalStore.migrate(url) == .created)
            let options = ServeOptions(port: 0, dataDirectory: nil, users: ["alice"], coalescingWindow: 0, quiet: true)
            let a = try await ServerHost.start(options: options, store: url)
            defer { Task { await a.stop() } }
            let store = try #require(a.postgresStore)
            #expect(try await store.meta()["callFormat"] == "3")
            #expect(await a.perform(call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Z"}}}]}"#)).status == 200)

            // An older node's rows: format 1, the records/modify body as JSON.
            try await store.setMeta(["callFormat": "1"])
            for i in 0..<3 {
                _ = try await store.append(time: SystemClock().now(), call: JournaledCall(call: save("old\(i)", i), origin: nil).encoded())
            }
            let b = try await ServerHost.start(options: options, store: url)
            defer { Task { await b.stop() } }
            #expect(b.startupReport.contains("format 3"), "\(b.startupReport)")
            #expect(try await store.meta()["callFormat"] == "3")
            for i in 0..<3 { #expect(await (i % 2 == 0 ? a : b).perform(save("new\(i)", i)).status == 200) }
            #expect(await b.perform(save("old1", 10)).status == 200)

            let rows = try await store.rows(after: 0)
            let modifies = try rows.map { try JournaledCall.decode($0.call).call }.filter { $0.path.hasSuffix("records/modify") }
            #expect(modifies.filter { JournaledCallBody.isBinary($0.body) }.count == 4, "the new rows are binary")
            #expect(modifies.filter { !JournaledCallBody.isBinary($0.body) }.count == 3, "the old rows stay JSON")

            let late = try await ServerHost.start(options: options, store: url)
            defer { Task { await late.stop() } }
            let tail = try await store.tail()
            for host in [a, b, late] { try await host.waitUntilApplied(tail) }
            #expect(try stateBytes(late) == stateBytes(a))
            #expect(try stateBytes(b) == stateBytes(a))
            let read = await late.perform(call(
                "records/lookup", #"{"zoneID":{"zoneName":"Z"},"records":[{"recordName":"old0"},{"recordName":"old1"},{"recordName":"new2"}]}"#))
            let text = String(decoding: read.body, as: UTF8.self)
            #expect(text.components(separatedBy: #""recordChangeTag""#).count == 4, "\(text)")
            #expect(text.contains(#""value":10"#), "\(text)")

            // A format this syncscope does not know is refused with a sentence.
            try await store.setMeta(["callFormat": "9"])
            do {
                let other = try await ServerHost.start(options: options, store: url)
                await other.stop()
                Issue.record("a journal in call format 9 was served")
            } catch {
                #expect("\(error)".contains("format 9"), "\(error)")
            }
        }
    }

    /// The journal does not grow forever: the node that stores a checkpoint
    /// deletes the rows more than `journalKeepRows` behind it. A node
    /// that was behind the deleted rows restores the checkpoint and reads on,
    /// and agrees with the others; a node started later does too.
    @Test func rowsBehindTheCheckpointAreFoldedAndANodeBehindThemRestoresTheCheckpoint() async throws {
        try await PostgresCluster.withCluster { cluster in
            try await cluster.createDatabase("folding")
            let url = try PostgresStoreURL(parsing: cluster.url(database: "folding"), environment: [:])
            #expect(try await PostgresJournalStore.migrate(url) == .created)
            var options = ServeOptions(port: 0, dataDirectory: nil, users: ["alice"], coalescingWindow: 0, quiet: true, checkpointEvery: 5)
            options.journalKeepRows = 5
            let a = try await ServerHost.start(options: options, store: url)
            let behind = try await ServerHost.start(options: options, store: url)
            defer {
                Task {
                    await a.stop()
                    await behind.stop()
                }
            }
            #expect(await a.perform(call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Z"}}}]}"#)).status == 200)
            let store = try #require(a.postgresStore)
            try await behind.waitUntilApplied(try await store.tail())
            let behindAt = behind.state.withLock { $0.applied }
            // This node stops following the journal (as if its watcher had stalled).
            behind.sharedStore?.watcher.withLock { $0?.cancel() }

            for i in 0..<40 { #expect(await a.perform(save("r\(i % 9)", i)).status == 200) }
            let tail = try await store.tail()
            // Checkpoints are stored (and rows folded) off the answering path: wait for the last ones, bounded.
            let lastCheckpoint = tail - tail % 5
            let deadline = ContinuousClock.now + .seconds(60)
            var folded: Int64 = 0
            while ContinuousClock.now < deadline {
                folded = try await foldedThrough(cluster, database: "folding")
                if folded >= lastCheckpoint - 5 { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            let checkpoint = try #require(try await store.checkpoint())
            #expect(checkpoint.throughPosition == lastCheckpoint)
            #expect(folded > behindAt, "rows the lagging node needs were folded (folded through \(folded), it applied \(behindAt))")
            #expect(folded == checkpoint.throughPosition - 5, "one checkpoint interval of rows stays: folded through \(folded), checkpoint at \(checkpoint.throughPosition)")
            let kept = try await cluster.psql("SELECT count(*) FROM syncscope.journal", database: "folding")
            #expect(Int(kept.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 999 <= Int(tail - folded), "\(kept)")
            do {
                _ = try await store.rows(after: 0)
                Issue.record("folded rows were handed out")
            } catch let error as PostgresStoreError {
                #expect(error.kind == .historyFolded)
            }

            // The lagging node catches up through the checkpoint.
            try await behind.catchUp()
            #expect(behind.historyRestores.load(ordering: .relaxed) == 1)
            try await a.waitUntilApplied(try await store.tail())
            #expect(try stateBytes(behind) == stateBytes(a))
            let read = await behind.perform(call("records/lookup", #"{"zoneID":{"zoneName":"Z"},"records":[{"recordName":"r3"}]}"#))
            #expect(String(decoding: read.body, as: UTF8.self).contains(#""value":39"#), "\(String(decoding: read.body, as: UTF8.self))")

            // A node started now begins at the checkpoint and agrees too.
            let late = try await ServerHost.start(options: options, store: url)
            defer { Task { await late.stop() } }
            #expect(late.startupReport.contains("restored the checkpoint"), "\(late.startupReport)")
            let end = try await store.tail()
            for host in [a, late] { try await host.waitUntilApplied(end) }
            #expect(try stateBytes(late) == stateBytes(a))
        }
    }

    func foldedThrough(_ cluster: PostgresCluster, database: String) async throws -> Int64 {
        Int64(try await cluster.psql("SELECT folded_through FROM syncscope.tail", database: database).trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// A device that moves from one node to another stays online: the node
    /// where its last poll ended does not take it offline while a poll of it
    /// is open on another node; once no poll is open anywhere and the grace
    /// period has passed, it goes offline.
    @Test func aDeviceThatMovesToAnotherNodeStaysOnlineWhileItPollsThere() async throws {
        try await PostgresCluster.withCluster { cluster in
            try await cluster.createDatabase("presence")
            let url = try PostgresStoreURL(parsing: cluster.url(database: "presence"), environment: [:])
            #expect(try await PostgresJournalStore.migrate(url) == .created)
            let grace: Milliseconds = 300
            let options = ServeOptions(port: 0, dataDirectory: nil, users: ["alice"], coalescingWindow: 0, quiet: true, offlineAfter: grace)
            let a = try await ServerHost.start(options: options, store: url)
            let b = try await ServerHost.start(options: options, store: url)
            defer {
                Task {
                    await a.stop()
                    await b.stop()
                }
            }
            let device = await a.perform(APICall(
                method: "POST", path: "/device/1/\(container)/development/tokens/create", body: Data(#"{"apnsEnvironment":"development"}"#.utf8), user: "alice"))
            let deviceID = try #require((try JSONSerialization.jsonObject(with: device.body) as? [String: Any])?["apnsToken"] as? String)
            func online(_ host: ServerHost) async throws -> Bool? {
                try await host.catchUp()
                return host.state.withLock { $0.core.push.isOnline(deviceID) }
            }

            // A short poll on node a, then the device moves to node b for a long one.
            _ = await a.poll(deviceID: deviceID, user: "alice", timeout: .milliseconds(50), lastNotificationID: nil, presence: nil)
            #expect(try await online(a) == true)
            let longPoll = Task { await b.poll(deviceID: deviceID, user: "alice", timeout: .seconds(4), lastNotificationID: nil, presence: nil) }
            let openDeadline = ContinuousClock.now + .seconds(30)
            while b.openPolls(of: deviceID) == 0, ContinuousClock.now < openDeadline { try await Task.sleep(for: .milliseconds(10)) }
            #expect(b.openPolls(of: deviceID) == 1)
            // Node a's grace period ends several times over while the poll on b is open.
            try await Task.sleep(for: .milliseconds(Int64(grace) * 5))
            #expect(try await online(a) == true, "node a took the device offline while it polled node b")
            #expect(try await online(b) == true)

            // The poll on b ends; after the grace period the device goes offline.
            _ = await longPoll.value
            let offlineDeadline = ContinuousClock.now + .seconds(30)
            var state = try await online(a)
            while state != false, ContinuousClock.now < offlineDeadline {
                try await Task.sleep(for: .milliseconds(25))
                state = try await online(a)
            }
            #expect(state == false)
            #expect(try await online(b) == false)
        }
    }

    /// A node whose clock runs an hour behind appends its write in one
    /// statement (never sent again); the row keeps the time it asked for and
    /// applies at the time of the row before it, on the node that answered,
    /// on the other node, and on a node started later from a checkpoint taken
    /// just before that row (the checkpoint keeps the time it was applied at).
    @Test func aNodeWhoseClockRunsBehindAppendsInOneStatementAndItsRowAppliesAtThePreviousRowsTimeEverywhere() async throws {
        try await PostgresCluster.withCluster { cluster in
            try await cluster.createDatabase("skewed")
            let url = try PostgresStoreURL(parsing: cluster.url(database: "skewed"), environment: [:])
            #expect(try await PostgresJournalStore.migrate(url) == .created)
            let options = ServeOptions(port: 0, dataDirectory: nil, users: ["alice"], coalescingWindow: 0, quiet: true, checkpointEvery: 3)
            let a = try await ServerHost.start(options: options, store: url)
            let b = try await ServerHost.start(options: options, store: url)
            defer {
                Task {
                    await a.stop()
                    await b.stop()
                }
            }
            let store = try #require(a.postgresStore)
            let behind = try #require(b.sharedStore)
            behind.clockOffset.store(-3_600_000, ordering: .relaxed)
            #expect(await a.perform(call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Z"}}}]}"#)).status == 200)
            let ahead = await a.perform(save("ahead", 1))
            #expect(ahead.status == 200)
            let aheadTime = try modifiedTime(ahead)
            // Rows 1–3 (alice, the zone, "ahead"): the checkpoint at 3 is the one a late node starts from.
            #expect(try await store.tail() == 3)
            let deadline = ContinuousClock.now + .seconds(60)
            while try await store.checkpoint()?.throughPosition != 3, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
            #expect(try await store.checkpoint()?.time == aheadTime)

            let commitsBefore = (behind.journal as? PostgresSharedJournal)?.store.counters.commits.load(ordering: .relaxed) ?? 0
            let written = await b.perform(save("late", 2))
            #expect(written.status == 200, "\(String(decoding: written.body, as: UTF8.self))")
            #expect((behind.journal as? PostgresSharedJournal)?.store.counters.commits.load(ordering: .relaxed) ?? 0 == commitsBefore + 1, "one statement, never sent again")
            let row = try #require(try await store.rows(after: 3).first)
            #expect(row.time < aheadTime - 3_500_000, "the row keeps the time the node behind asked for")
            #expect(try modifiedTime(written) == aheadTime, "the node answers from the time the row applies at")

            let late = try await ServerHost.start(options: options, store: url)
            defer { Task { await late.stop() } }
            #expect(late.startupReport.contains("restored the checkpoint at 3"), "\(late.startupReport)")
            let tail = try await store.tail()
            for host in [a, b, late] { try await host.waitUntilApplied(tail) }
            let lookup = call("records/lookup", #"{"zoneID":{"zoneName":"Z"},"records":[{"recordName":"late"}]}"#)
            for host in [a, b, late] { #expect(try modifiedTime(await host.perform(lookup)) == aheadTime) }
            #expect(try stateBytes(a) == stateBytes(b))
            #expect(try stateBytes(late) == stateBytes(a))
            // The node ahead writes on at its own time, after the row behind.
            let next = await a.perform(save("next", 3))
            #expect(try modifiedTime(next) >= aheadTime)
        }
    }

    /// A journal written by an earlier syncscope (call format 2, rows of
    /// ``JournaledCall`` version 1 whose times, by the time guard it used,
    /// never go back) replays byte for byte as it did then, each row at its
    /// recorded time; the node moves the journal to format 3.
    @Test func aJournalOfTheEarlierFormatReplaysByteForByteAtItsRecordedTimes() async throws {
        try await PostgresCluster.withCluster { cluster in
            try await cluster.createDatabase("earlier")
            let url = try PostgresStoreURL(parsing: cluster.url(database: "earlier"), environment: [:])
            #expect(try await PostgresJournalStore.migrate(url) == .created)
            let store = try await PostgresJournalStore.open(url)
            defer { store.close() }
            try await store.setMeta(["seed": "42", "retention": "none", "coalescingWindow": "0", "adminToken": "admin-earlier", "callFormat": "2"])
            let start: Int64 = 1_700_000_000_000
            var calls: [APICall] = [
                .server("addUser", DispatcherInternal.AddUser(name: "alice")),
                call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Z"}}}]}"#),
                call("subscriptions/modify", #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"all","subscriptionType":"database"}}]}"#),
                APICall(method: "POST", path: "/device/1/\(container)/development/tokens/create", body: Data(#"{"apnsEnvironment":"development"}"#.utf8), user: "alice"),
            ]
            for i in 0..<8 { calls.append(save("r\(i % 3)", i)) }
            var rows: [(time: Int64, call: Data)] = []
            for (index, call) in calls.enumerated() {
                var bytes = JournaledCall(call: call, origin: nil).encoded()
                bytes[bytes.startIndex + 3] = 1  // the version an earlier syncscope wrote
                // Never going back; some rows share a time.
                rows.append((time: start + Int64(index / 2) * 1500, call: bytes))
            }
            _ = try await store.append(Array(rows.prefix(5)))
            _ = try await store.append(Array(rows.dropFirst(5)))

            // As the earlier syncscope applied it: each row at its recorded time.
            let journal = try await store.rows(after: 0)
            #expect(journal.count == calls.count)
            let clock = CallClock()
            let core = ServerHost.makeCore(seed: 42, settings: .init(retention: nil, coalescingWindow: 0), clock: clock)
            for row in journal {
                clock.set(row.time)
                var dispatcher = APIDispatcher(core: core, now: row.time, baseURL: "http://127.0.0.1:0")
                dispatcher.answering = false
                _ = dispatcher.step(try JournaledCallBody.decode(try JournaledCall.decode(row.call).call))
                if let next = core.push.nextDeliveryTime, next <= row.time { _ = core.push.deliverDue(now: row.time) }
            }

            let options = ServeOptions(port: 0, dataDirectory: nil, users: ["alice"], coalescingWindow: 0, quiet: true)
            let node = try await ServerHost.start(options: options, store: url)
            defer { Task { await node.stop() } }
            #expect(node.startupReport.contains("format 3"), "\(node.startupReport)")
            #expect(try await store.meta()["callFormat"] == "3")
            #expect(try await store.tail() == Int64(calls.count), "nothing was added: alice was there")
            #expect(try stateBytes(node) == stateBytes(core))
            // r0 was last saved by row 11 (r0 = 6), recorded at start + 5 × 1,500 ms.
            let read = await node.perform(call("records/lookup", #"{"zoneID":{"zoneName":"Z"},"records":[{"recordName":"r0"}]}"#))
            #expect(String(decoding: read.body, as: UTF8.self).contains(#""value":6"#), "\(String(decoding: read.body, as: UTF8.self))")
            #expect(try modifiedTime(read) == start + 7500)
        }
    }

    /// A database never mistakes lost state for new state: with its
    /// checkpoint deleted after the rows before it were folded, or its
    /// settings deleted, a node refuses to start, naming the database and
    /// what is missing, and writes nothing.
    @Test func aDatabaseWithAHoleInItsHistoryIsRefusedByName() async throws {
        try await PostgresCluster.withCluster { cluster in
            try await cluster.createDatabase("holes")
            let url = try PostgresStoreURL(parsing: cluster.url(database: "holes"), environment: [:])
            #expect(try await PostgresJournalStore.migrate(url) == .created)
            var options = ServeOptions(port: 0, dataDirectory: nil, users: ["alice"], coalescingWindow: 0, quiet: true, checkpointEvery: 5)
            options.journalKeepRows = 5
            let a = try await ServerHost.start(options: options, store: url)
            #expect(await a.perform(call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Z"}}}]}"#)).status == 200)
            for i in 0..<20 { #expect(await a.perform(save("h\(i)", i)).status == 200) }
            let deadline = ContinuousClock.now + .seconds(60)
            while try await foldedThrough(cluster, database: "holes") == 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            await a.stop()
            _ = try await cluster.psql("DELETE FROM syncscope.checkpoint", database: "holes")
            await #expect {
                _ = try await ServerHost.start(options: options, store: url)
            } throws: { error in
                let text = "\(error)"
                return text.contains("'holes'") && text.contains("folded") && text.contains("hole")
            }
            _ = try await cluster.psql("DELETE FROM syncscope.meta WHERE key IN ('seed', 'adminToken', 'coalescingWindow', 'retention', 'callFormat')", database: "holes")
            await #expect {
                _ = try await ServerHost.start(options: options, store: url)
            } throws: { error in
                "\(error)".contains("'holes'") && "\(error)".contains("no settings")
            }
            let meta = try await cluster.psql("SELECT count(*) FROM syncscope.meta WHERE key = 'seed'", database: "holes")
            #expect(meta.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "a refused start writes no new settings: \(meta)")
        }
    }
}

extension ServerHost {
    /// The node's store on a shared journal.
    var sharedStore: SharedJournalStore? { store as? SharedJournalStore }
    /// The PostgreSQL store under it, when the journal is in PostgreSQL.
    var postgresStore: PostgresJournalStore? { (sharedStore?.journal as? PostgresSharedJournal)?.store }
}

/// Six writers, half on each node, saving 8 records each at once, with overlapping names.
func writeFromBoth(_ a: ServerHost, _ b: ServerHost, _ save: @escaping @Sendable (String, Int) -> APICall) async {
    await withTaskGroup(of: Void.self) { group in
        for writer in 0..<6 {
            let host = writer % 2 == 0 ? a : b
            group.addTask {
                for i in 0..<8 {
                    let answer = await host.perform(save("r\((writer * 5 + i) % 13)", writer * 100 + i))
                    #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
                }
            }
        }
    }
}
