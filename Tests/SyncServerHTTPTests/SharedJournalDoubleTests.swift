import Foundation
import SyncCore
import SyncServer
@testable import SyncServerHost
@testable import SyncServerSQLite
@testable import SyncServerHTTP
import Testing

/// Several nodes on one ``InMemorySharedJournal``: the multi-node rules of
/// ``SharedJournalStore`` without PostgreSQL, and with the faults a real
/// store has (a failed or slow commit, a commit whose acknowledgement is
/// lost, notifications that never come, a lost watch).
struct SharedJournalDoubleTests {
    let container = "iCloud.com.example.Shared"

    func call(_ operation: String, _ json: String, user: String = "alice") -> APICall {
        APICall(method: "POST", path: "/database/1/\(container)/development/private/\(operation)", body: Data(json.utf8), user: user)
    }

    func save(_ name: String, _ value: Int) -> APICall {
        call("records/modify", #"{"zoneID":{"zoneName":"Z"},"operations":[{"operationType":"forceReplace","record":{"recordName":"\#(name)","recordType":"Note","fields":{"n":{"value":\#(value)}}}}]}"#)
    }

    func makeZone() -> APICall {
        call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Z"}}}]}"#)
    }

    func options(checkpointEvery: Int = 20_000, keepRows: Int = 10_000) -> ServeOptions {
        var options = ServeOptions(port: 0, dataDirectory: nil, users: ["alice"], coalescingWindow: 0, quiet: true, checkpointEvery: checkpointEvery)
        options.journalKeepRows = keepRows
        return options
    }

    func node(_ journal: InMemorySharedJournal, _ options: ServeOptions) async throws -> ServerHost {
        try await ServerHost.start(options: options, on: SharedJournalStore(journal: journal, options: options))
    }

    func stateBytes(_ host: ServerHost) throws -> Data {
        try host.state.withLock { state in
            var file = state.core.engine.exportState()
            file.push = state.core.push.exportState(includingDevices: true, reseeding: false)
            return try CheckpointFormat.encode(file)
        }
    }

    func lookup(_ host: ServerHost, _ name: String) async -> String {
        String(decoding: await host.perform(call("records/lookup", #"{"zoneID":{"zoneName":"Z"},"records":[{"recordName":"\#(name)"}]}"#)).body, as: UTF8.self)
    }

    @Test func nodesAgreeByteForByteAndALateNodeRestoresTheCheckpoint() async throws {
        let journal = InMemorySharedJournal()
        let options = options(checkpointEvery: 7)
        let a = try await node(journal, options)
        let b = try await node(journal, options)
        #expect(a.users.map(\.webAuthToken) == b.users.map(\.webAuthToken))
        #expect(await a.perform(makeZone()).status == 200)
        await writeFromBoth(a, b, save)
        let tail = try await journal.tail()
        try await a.waitUntilApplied(tail)
        try await b.waitUntilApplied(tail)
        #expect(try stateBytes(a) == stateBytes(b))

        // The checkpoint the nodes stored (every 7 rows) is where a late node starts.
        let deadline = ContinuousClock.now + .seconds(30)
        while try await journal.checkpoint() == nil, ContinuousClock.now < deadline { await Task.yield() }
        let checkpoint = try #require(try await journal.checkpoint())
        #expect(checkpoint.through % 7 == 0 && checkpoint.through > 0)
        let late = try await node(journal, options)
        #expect(late.startupReport.contains("restored the checkpoint"), "\(late.startupReport)")
        try await late.waitUntilApplied(try await journal.tail())
        #expect(try stateBytes(late) == stateBytes(a))
        // A read on the late node sees a write just answered by another.
        #expect(await b.perform(save("fresh", 1)).status == 200)
        #expect(await lookup(late, "fresh").contains(#""recordChangeTag""#))
        for host in [a, b, late] { await host.stop() }
    }

    /// A commit that fails before anything is stored is answered 503 and
    /// changes nothing anywhere; the next call goes through.
    @Test func aFailedCommitIsAnswered503AndChangesNothing() async throws {
        let journal = InMemorySharedJournal()
        let a = try await node(journal, options())
        let b = try await node(journal, options())
        #expect(await a.perform(makeZone()).status == 200)
        journal.inject(.init(failAppends: 1))
        let failed = await a.perform(save("lost", 1))
        #expect(failed.status == 503)
        #expect(String(decoding: failed.body, as: UTF8.self).contains("may or may not be stored"))
        try await b.catchUp()
        #expect(await lookup(b, "lost").contains("NOT_FOUND"))
        #expect(await a.perform(save("kept", 2)).status == 200)
        #expect(await lookup(b, "kept").contains(#""recordChangeTag""#))
        #expect(try stateBytes(a) == stateBytes(b))
    }

    /// A commit that is stored but whose acknowledgement is lost (the node
    /// crashed, or its connection dropped, between the append and the ack) is
    /// answered 503 "may or may not be stored", never assumed failed: every
    /// node applies it, the node that appended it included.
    @Test func aCommitWhoseAcknowledgementIsLostIsAppliedEverywhere() async throws {
        let journal = InMemorySharedJournal()
        let a = try await node(journal, options())
        let b = try await node(journal, options())
        #expect(await a.perform(makeZone()).status == 200)
        journal.inject(.init(loseAppendAcknowledgements: 1))
        let unknown = await a.perform(save("maybe", 1))
        #expect(unknown.status == 503)
        try await a.catchUp()
        try await b.catchUp()
        #expect(await lookup(a, "maybe").contains(#""recordChangeTag""#))
        #expect(await lookup(b, "maybe").contains(#""recordChangeTag""#))
        #expect(try stateBytes(a) == stateBytes(b))
    }

    /// Slow commits gather the calls waiting behind them into one
    /// transaction (group commit), and nothing is answered before it commits.
    @Test func slowCommitsGatherWaitingCallsIntoOneTransaction() async throws {
        let journal = InMemorySharedJournal()
        let a = try await node(journal, options())
        #expect(await a.perform(makeZone()).status == 200)
        journal.inject(.init(appendDelay: .milliseconds(50)))
        let before = journal.summary
        await withTaskGroup(of: Int.self) { group in
            for i in 0..<20 { group.addTask { await a.perform(self.save("s\(i)", i)).status } }
            for await status in group { #expect(status == 200) }
        }
        #expect(try await journal.tail() >= 22)
        let commits = { (summary: String) in Int(summary.split(separator: " ")[4]) ?? 0 }
        #expect(commits(journal.summary) - commits(before) < 20, "\(before) → \(journal.summary)")
    }

    /// Notifications of new rows that never arrive (and a watch that is
    /// lost) do not stop a read from seeing every acknowledged write: reads
    /// catch up to the tail first.
    @Test func lostNotificationsAndALostWatchDoNotHideWrites() async throws {
        let journal = InMemorySharedJournal()
        let a = try await node(journal, options())
        let b = try await node(journal, options())
        #expect(await a.perform(makeZone()).status == 200)
        journal.inject(.init(dropNotifications: true))
        #expect(await a.perform(save("quiet", 1)).status == 200)
        #expect(b.applied < (try await journal.tail()))
        #expect(await lookup(b, "quiet").contains(#""recordChangeTag""#))
        journal.dropWatches()
        #expect(await a.perform(save("after", 2)).status == 200)
        #expect(await lookup(b, "after").contains(#""recordChangeTag""#))
    }

    /// Rows well behind the stored checkpoint are folded; a node behind
    /// them restores the checkpoint and catches up to the same state.
    @Test func aNodeBehindTheFoldedRowsRestoresTheCheckpoint() async throws {
        let journal = InMemorySharedJournal()
        let options = options(checkpointEvery: 5, keepRows: 5)
        let a = try await node(journal, options)
        let behind = try await node(journal, options)
        behind.sharedStore?.watcher.withLock { $0?.cancel() }
        #expect(await a.perform(makeZone()).status == 200)
        for i in 0..<40 { #expect(await a.perform(save("f\(i % 9)", i)).status == 200) }
        // Checkpoints are written (and rows folded) in the background: once the last is, nothing is folded under the catch-up.
        await a.sharedStore?.checkpointsWritten()
        #expect(journal.kept.foldedThrough > behind.applied)
        try await behind.catchUp()
        #expect(behind.historyRestores.load(ordering: .relaxed) == 1)
        try await a.catchUp()
        #expect(try stateBytes(behind) == stateBytes(a))
    }

    /// A notification waiting for a device is handed to one poll, whichever node it reaches.
    @Test func aNotificationIsHandedToOnePollWhicheverNodeItReaches() async throws {
        let journal = InMemorySharedJournal()
        let a = try await node(journal, options())
        let b = try await node(journal, options())
        #expect(await a.perform(makeZone()).status == 200)
        #expect(await b.perform(call(
            "subscriptions/modify", #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"all","subscriptionType":"database"}}]}"#)).status == 200)
        let device = await a.perform(APICall(
            method: "POST", path: "/device/1/\(container)/development/tokens/create", body: Data(#"{"apnsEnvironment":"development"}"#.utf8), user: "alice"))
        let deviceID = try #require((try JSONSerialization.jsonObject(with: device.body) as? [String: Any])?["apnsToken"] as? String)
        for i in 0..<4 { #expect(await (i % 2 == 0 ? a : b).perform(save("n\(i)", i)).status == 200) }
        try await a.catchUp()
        try await b.catchUp()
        func poll(_ host: ServerHost) async -> ServerHost.PollResult {
            await host.poll(deviceID: deviceID, user: "alice", timeout: .seconds(5), lastNotificationID: "", presence: nil)
        }
        async let onA = poll(a)
        async let onB = poll(b)
        let (first, second) = await (onA, onB)
        #expect(first.notificationIDs.count == 1 && second.notificationIDs.count == 1)
        #expect(Set(first.notificationIDs).isDisjoint(with: second.notificationIDs), "\(first.notificationIDs) \(second.notificationIDs)")
    }

    /// A store never mistakes lost state for new state: a journal whose
    /// settings are gone, or whose checkpoint is gone while the rows before
    /// it were folded, is refused by name.
    @Test func aJournalWithAHoleInItsHistoryIsRefusedByName() async throws {
        let journal = InMemorySharedJournal()
        let options = options(checkpointEvery: 5, keepRows: 5)
        let a = try await node(journal, options)
        #expect(await a.perform(makeZone()).status == 200)
        for i in 0..<20 { #expect(await a.perform(save("h\(i)", i)).status == 200) }
        let deadline = ContinuousClock.now + .seconds(30)
        while journal.kept.foldedThrough == 0, ContinuousClock.now < deadline { await Task.yield() }
        try #require(journal.kept.foldedThrough > 0)
        await a.stop()

        journal.deleteCheckpoint()
        await #expect {
            _ = try await node(journal, options)
        } throws: { error in
            let text = "\(error)"
            return text.contains("the in-memory shared journal") && text.contains("folded") && text.contains("hole")
        }

        let forgotten = InMemorySharedJournal()
        let first = try await node(forgotten, self.options())
        #expect(await first.perform(makeZone()).status == 200)
        await first.stop()
        forgotten.deleteMeta()
        await #expect {
            _ = try await node(forgotten, self.options())
        } throws: { error in
            "\(error)".contains("the in-memory shared journal") && "\(error)".contains("no settings")
        }
        #expect(try await forgotten.meta().isEmpty, "a refused start writes no new settings")
    }
}
