import Foundation
import SyncCore
import SyncServer
import SyncSimulation
@testable import SyncWorlds
import Testing
@testable import SyncInspector
import SyncInspectorWorlds

/// What a newcomer tripped on (issue 13, section 2), each reproduced the way
/// a person meets it — keys on the demo world, or the state and view on
/// their own — and held fixed.
@Suite("Inspector: what a newcomer tripped on")
struct NewcomerTests {
    func createNote(_ inspector: InspectorController, name: String, title: String = "A note") async {
        await inspector.press(.character("n"))
        await inspector.type(name)
        await inspector.press(.tab, .tab)
        await inspector.type(title)
        await inspector.press(.enter)
    }

    // MARK: Tokens that differ yet cover the same changes

    @Test func zonesShowTheChangeEachTokenStandsFor() async throws {
        let inspector = try await makeInspector(size: Size(width: 120, height: 40))
        // The Mac fetched Notes from no token: its token keeps that start, the server's "now" token does not.
        try await inspector.focus("Mac")
        let zone = try #require(inspector.state.zone)
        #expect(zone.state == .inSync)
        let server = try #require(zone.serverToken)
        let device = try #require(zone.deviceToken)
        let through = try #require(zone.serverThrough)
        // The texts differ (the device's token keeps where its first fetch began)…
        #expect(server != device)
        // …but both stand for the same change, and the row says so.
        #expect(zone.deviceThrough == through)
        let row = try #require(inspector.pane(.zones).line(containing: "Notes"), "\(inspector.lines.joined(separator: "\n"))")
        #expect(row.contains("#\(through) \(server.shortForm)"), "\(row)")
        #expect(row.contains("#\(through) \(device.shortForm)"), "\(row)")
        #expect(row.contains("in sync"))
        // The footer explains why two different tokens are in sync.
        let footer = try #require(inspector.pane(.zones).last)
        #expect(footer.contains("Tokens differ, same changes: both through change \(through)."), "\(footer)")

        // Behind: the footer names both positions.
        await inspector.press(.character("o"))
        try await inspector.focus("iPhone")
        await createNote(inspector, name: "fresh")
        try await inspector.focus("Mac")
        let behind = try #require(inspector.state.zone)
        #expect(behind.state == .behind(1))
        #expect(behind.serverThrough == through + 1 && behind.deviceThrough == through)
        #expect(inspector.pane(.zones).last?.contains("Device #\(through), server #\(through + 1): a fetch brings 1 record.") == true,
                "\(inspector.pane(.zones).joined(separator: "\n"))")
    }

    /// Three changes behind, two records to fetch (one record changed twice):
    /// the footer names both counts, so "19, 22: 2" never reads as wrong arithmetic.
    @Test func behindNamesChangesAndRecordsApart() {
        let entry = ZoneEntry(
            scope: .private, zoneID: RecordZoneID(zoneName: "Notes", ownerName: "alice"), recordCount: 5, lastSequence: 22,
            serverToken: ServerChangeToken(rawValue: "AAAAAAAAAAaaaaaaa"), deviceToken: ServerChangeToken(rawValue: "BBBBBBBBBBbbbbbbb"),
            serverThrough: 22, deviceThrough: 19, state: .behind(2))
        #expect(entry.tokenComparison(width: 200)
            == "Device's token through change 19, server's through change 22: 3 changes behind, a fetch brings 2 records.")
        #expect(entry.tokenComparison(width: 70) == "Device through change 19, server 22: a fetch brings 2 records.")
        #expect(!entry.tokenComparison(width: 70).contains("behind 2"))
        #expect(ZoneSyncState.behind(2).long == "behind: a fetch brings 2 records")
        for width in [20, 30, 42, 60, 120] { #expect(TextWidth.of(entry.tokenComparison(width: width)) <= width) }
    }

    @Test func tokenComparisonWordsFitTheirWidth() {
        let a = ServerChangeToken(rawValue: "AAAAAAAAAAaaaaaaa")
        let b = ServerChangeToken(rawValue: "BBBBBBBBBBbbbbbbb")
        var entry = ZoneEntry(
            scope: .private, zoneID: RecordZoneID(zoneName: "Notes", ownerName: "alice"), recordCount: 3, lastSequence: 41,
            serverToken: a, deviceToken: b, serverThrough: 41, deviceThrough: 41, state: .inSync)
        #expect(entry.tokenComparison(width: 200).hasPrefix("Tokens differ in text, yet both stand for change 41: same changes"))
        #expect(entry.tokenComparison(width: 42) == "Tokens differ, same changes: both #41." || entry.tokenComparison(width: 42).count <= 42)
        for width in [20, 30, 42, 60, 120] { #expect(TextWidth.of(entry.tokenComparison(width: width)) <= width) }
        // Over HTTP the positions are not known: still explained.
        entry.serverThrough = nil
        entry.deviceThrough = nil
        #expect(entry.tokenComparison(width: 200).contains("cover the same changes: a fetch from the device's token brings nothing"))
        entry.deviceToken = a
        #expect(entry.tokenComparison(width: 200) == "The device holds the server's latest token.")
        #expect(InspectorView.tokenCell(a, through: 41) == "#41 aaaaaaa")
        #expect(InspectorView.tokenCell(a, through: nil) == "aaaaaaa")
        #expect(InspectorView.tokenCell(nil, through: 41) == "—")
        #expect(InspectorView.tokenCell(a, through: 41, width: 7) == "#41 aaa")
        #expect(InspectorView.tokenCell(a, through: 41_000, width: 7) == "#41000")
    }

    // MARK: Back online

    @Test func backOnlineNamesTheHeldNotificationTheFeedShows() async throws {
        let inspector = try await makeInspector(size: Size(width: 120, height: 40))
        try await inspector.focus("Mac")
        await inspector.press(.character("o"))
        try await inspector.focus("iPhone")
        for n in 1...4 { await createNote(inspector, name: "away-\(n)") }
        await inspector.settle()
        try await inspector.focus("Mac")
        let held = try #require(inspector.pane(.notifications).line(containing: "held"), "\(inspector.lines.joined(separator: "\n"))")
        #expect(held.contains("4→1"), "\(held)")

        await inspector.press(.character("o"))
        let message = try #require(inspector.state.message?.text)
        #expect(!message.contains("0 held"), "\(message)")
        #expect(message.contains("the push service sent the notification it held (4→1); it arrives in "), "\(message)")
        await inspector.settle()
        let delivered = try #require(inspector.pane(.notifications).dropFirst().first)
        #expect(delivered.contains("4→1") && !delivered.contains("held"), "\(delivered)")
    }

    @Test func backOnlineWordsEachCase() {
        let held = CloudNotification.database(DatabaseNotification(
            notificationID: "n1", subscriptionID: "private-changes", containerIdentifier: "iCloud.demo", databaseScope: .private,
            coalescedCount: 4))
        #expect(InspectorWorld.backOnlineMessage(device: "Mac", heldBefore: [], arrived: [], arrivesAt: nil, now: 0)
            == "Mac is back online: no notification was held for it; it sent its changes and fetches.")
        #expect(InspectorWorld.backOnlineMessage(device: "Mac", heldBefore: [held], arrived: [held], arrivesAt: nil, now: 0)
            == "Mac is back online: the notification held for it (4→1) arrived; it sent its changes and fetches.")
        // A server over HTTP does not show what it holds: no count is made up.
        let remote = InspectorWorld.backOnlineMessage(device: "Mac", heldBefore: nil, arrived: [], arrivesAt: nil, now: 0)
        #expect(!remote.contains("0 "), "\(remote)")
        #expect(remote.contains("comes with its next poll"))
    }

    // MARK: A stale "Cannot read the server"

    @Test func aServerReadFailureGoesWhenTheServerAnswersAgain() {
        var state = InspectorState(clock: ClockStatus(now: 0, isPaused: false, speed: 1))
        state.serverReadFailed(source: "http://127.0.0.1:8080", reason: "Connection refused.")
        #expect(state.message?.kind == .error)
        #expect(state.message?.text == "Cannot read the server (http://127.0.0.1:8080): Connection refused.")
        state.serverReadSucceeded(source: "http://127.0.0.1:8080")
        #expect(state.message?.kind == .success)
        #expect(state.message?.text.contains("Cannot read") == false)
        #expect(state.serverReadProblem == nil)
        // A later success says nothing more.
        state.message = nil
        state.serverReadSucceeded(source: "http://127.0.0.1:8080")
        #expect(state.message == nil)
        // A newer message (a key's outcome) is not replaced.
        state.serverReadFailed(source: "s", reason: "down")
        state.message = InspectorMessage("iPhone fetched.", kind: .success)
        state.serverReadSucceeded(source: "s")
        #expect(state.message?.text == "iPhone fetched.")
        #expect(state.serverReadProblem == nil)
    }

    @Test func aDevicesNetworkErrorGoesWhenTheServerAnswersAgain() async throws {
        let inspector = try await makeInspector()
        // The server fails the Mac inside (INTERNAL_ERROR) until told otherwise; f fails after its retries.
        try await inspector.focus("Mac")
        await inspector.execute(.addFault(FaultRule(.internalError, match: FaultMatch(device: "Mac"))))
        await inspector.press(.character("f"))
        await inspector.settle()
        let failure = try #require(inspector.state.message)
        #expect(failure.kind == .error, "\(failure)")
        #expect(inspector.state.syncProblem == SyncProblem(device: "Mac", text: failure.text))
        // The fault ends; the iPhone saves, the Mac fetches on the push: the error is stale.
        await inspector.execute(.clearFaults)
        #expect(inspector.state.message == failure)
        let iPhone = try inspector.device("iPhone")
        _ = await inspector.simulation.save(
            Record(recordID: RecordID(recordName: "after-outage", zoneID: notesZone), recordType: "Note", fields: ["title": "back"]), on: iPhone)
        await inspector.settle()
        let message = try #require(inspector.state.message)
        #expect(message.kind == .success, "\(message)")
        #expect(message.text.hasPrefix("Mac: ") && message.text.hasSuffix("worked: the server answers again."), "\(message)")
        #expect(inspector.state.syncProblem == nil)
    }

    @Test func aSyncErrorIsClearedOnlyWhileItIsStillOnTheLine() {
        var state = InspectorState(clock: ClockStatus(now: 0, isPaused: false, speed: 1))
        state.syncFailed(InspectorMessage("Mac: fetch failed: networkFailure (NETWORK_FAILURE): down", kind: .error), device: "Mac")
        // Another device's answer says nothing about the Mac.
        state.syncRecovered(device: "iPhone", what: "sending to Notes")
        #expect(state.message?.kind == .error)
        state.syncRecovered(device: "Mac", what: "fetch run #3")
        #expect(state.message == InspectorMessage("Mac: fetch run #3 worked: the server answers again.", kind: .success))
        state.syncFailed(InspectorMessage("Mac: down", kind: .error), device: "Mac")
        state.message = InspectorMessage("Cancelled.")
        state.syncRecovered(device: "Mac", what: "fetch run #4")
        #expect(state.message?.text == "Cancelled.")
        #expect(state.syncProblem == nil)
    }

    // MARK: Compact, purge, reset on an offline device

    @Test func compactNamesWhoseTokensExpireAndIsNotOfferedOffline() async throws {
        let inspector = try await makeInspector()
        try await inspector.focus("iPad")
        #expect(inspector.state.zone?.zoneID.ownerName == "alice")
        await inspector.press(.character("c"))
        guard case .confirm(.compact, let question)? = inspector.state.overlay else {
            Issue.record("no question: \(inspector.lines.joined(separator: "\n"))")
            return
        }
        #expect(question.hasPrefix("Compact bob's history on the server?"), "\(question)")
        #expect(question.contains("Notes is alice's zone, shared with bob: its tokens stay valid"), "\(question)")
        await inspector.press(.character("n"))

        // Offline: said at once, nothing asked and then refused.
        await inspector.press(.character("o"))
        for key in ["c", "R"] {
            await inspector.press(.character(Character(key)))
            #expect(inspector.state.overlay == nil, "\(key): \(inspector.lines.joined(separator: "\n"))")
            #expect(inspector.state.message?.kind == .warning)
            #expect(inspector.state.message?.text.hasPrefix("iPad is offline: ") == true)
            #expect(inspector.state.message?.text.contains("Press o to bring it back online first.") == true)
        }
        // alice's own zone on her iPhone: no note about another owner.
        try await inspector.focus("iPhone")
        await inspector.press(.character("c"))
        guard case .confirm(.compact, let own)? = inspector.state.overlay else {
            Issue.record("no question")
            return
        }
        #expect(own.hasPrefix("Compact alice's history on the server?") && !own.contains("shared with"))
    }

    // MARK: Write burst

    @Test func burstSaysWhatThePushPaneThenShows() async throws {
        let inspector = try await makeInspector(size: Size(width: 120, height: 40))
        await inspector.press(.character("W"))
        let message = try #require(inspector.state.message?.text)
        #expect(message.contains("iPhone saved 20 notes in Notes and sent them in one request"), "\(message)")
        #expect(message.contains("× 1, fetch +20"), "\(message)")
        #expect(!message.contains("20 → 1"))
        await inspector.settle()
        try await inspector.focus("Mac")
        let push = try #require(inspector.pane(.notifications).dropFirst().first)
        #expect(push.contains(" 1 #") && push.contains("+20"), "\(push)")
    }

    @Test func burstWithoutAWriterIsASentenceNotAServerError() {
        var state = InspectorState(clock: ClockStatus(now: 0, isPaused: false, speed: 1))
        state.snapshot.devices = [DeviceSummary(
            name: "Phone", user: "alice", deviceID: "d1", isOnline: true, autoFetchOnPush: true, pendingChanges: 0, fetchRuns: 0, lastError: nil)]
        #expect(state.snapshot.writer == nil)
        let commands = InspectorKeys.handle(.character("W"), state: &state)
        #expect(commands.isEmpty)
        #expect(state.message?.kind == .warning)
        #expect(state.message?.text == "W (a write burst) needs the demo's writer, and this world has none: save records with n instead.")
        #expect(state.message?.text.contains("BAD_REQUEST") == false)
    }

    // MARK: Form placeholders

    @Test func newRecordFormShowsHintsNotValues() async throws {
        let inspector = try await makeInspector()
        await inspector.press(.character("n"))
        let screen = inspector.lines.joined(separator: "\n")
        #expect(screen.contains("‹e.g. note-1›"), "\(screen)")
        #expect(screen.contains("‹e.g. Shopping list›"), "\(screen)")
        // Submitting the empty name does not take the hint.
        await inspector.press(.enter)
        guard case .form(_, let form)? = inspector.state.overlay else {
            Issue.record("the form closed: \(inspector.lines.joined(separator: "\n"))")
            return
        }
        #expect(form.message == "Give the record a name, e.g. note-1.")
        #expect(inspector.simulation.device(named: "iPhone")?.cachedRecords(in: notesZone).contains { $0.recordID.recordName == "note-1" } == true)
    }

    // MARK: Records in reading order, with a scroll position

    @Test func naturalOrderComparesNumbersByValue() {
        let names = ["note-107", "note-41", "note-2", "note-10", "Note-3", "note-bob-1", "note-02", "note", "photo-1", "note-41b"]
        let sorted = names.sorted(by: NaturalOrder.less)
        #expect(sorted == ["Note-3", "note", "note-02", "note-2", "note-10", "note-41", "note-41b", "note-107", "note-bob-1", "photo-1"])
        // A strict total order: never equal for different names, antisymmetric.
        for a in names {
            for b in names {
                #expect((NaturalOrder.compare(a, b) == 0) == (a == b))
                #expect(NaturalOrder.compare(a, b) == -NaturalOrder.compare(b, a))
            }
        }
        #expect(NaturalOrder.less("x9", "x10") && !NaturalOrder.less("x10", "x9"))
        // The bulk sort agrees with the comparison, and leaves ordered lists as they are.
        #expect(NaturalOrder.sorted(names) { $0 } == sorted)
        #expect(NaturalOrder.isSorted(sorted) { $0 } && !NaturalOrder.isSorted(names) { $0 })
        let padded = (0..<50).map { "r\(100_000 + $0)" }
        #expect(NaturalOrder.sorted(padded.reversed()) { $0 } == padded)
        #expect(NaturalOrder.compare("é-01", "é-1") == -NaturalOrder.compare("é-1", "é-01") && NaturalOrder.compare("é-1", "é-1") == 0)
        #expect(NaturalOrder.less("a99999999999999999999999", "a100000000000000000000000"))
    }

    @Test func recordsSortAsAPersonReadsAndShowWhereTheListIs() async throws {
        let inspector = try await makeInspector()
        for name in ["note-107", "note-41", "note-10", "note-11", "note-12", "note-13"] { await createNote(inspector, name: name) }
        let names = inspector.state.snapshot.records.rows.map(\.name)
        let expected = names.sorted(by: NaturalOrder.less)
        #expect(names == expected)
        let notes = names.filter { $0.hasPrefix("note-") && $0.dropFirst(5).allSatisfy(\.isNumber) }
        #expect(notes == ["note-1", "note-2", "note-3", "note-4", "note-10", "note-11", "note-12", "note-13", "note-41", "note-107"], "\(names)")
        // Selecting by name still finds the row (the binary search uses the same order).
        try await inspector.selectRecord("note-41")
        #expect(inspector.state.record?.name == "note-41")

        // The records pane's bottom border says which rows are shown.
        let rect = inspector.state.layout.records
        let border = inspector.lines[rect.maxY - 1]
        let visible = inspector.state.layout.visibleRows(of: .records)
        let total = inspector.state.snapshot.records.count
        #expect(total > visible)
        let first = inspector.state.recordTable.visibleOffset(rowCount: total, visibleRows: visible) + 1
        #expect(border.contains(" \(first)–\(first + visible - 1) of \(total) "), "\(border)")
        #expect(InspectorView.scrollPosition(TableState(), rowCount: 3, visibleRows: 8, noun: "record") == "3 records")
        #expect(InspectorView.scrollPosition(TableState(), rowCount: 1, visibleRows: 8, noun: "record") == "1 record")
        #expect(InspectorView.scrollPosition(TableState(), rowCount: 0, visibleRows: 8, noun: "record") == nil)
        #expect(InspectorView.scrollPosition(TableState(selection: 20), rowCount: 30, visibleRows: 8, noun: "record") == "14–21 of 30")
    }

    // MARK: --log

    @Test func theLogStartsWithWhatHappenedBeforeTheInspectorOpened() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("syncscope-log-\(UUID().uuidString).txt").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let world = try await DemoWorld.make(writerRunning: false)
        let first = try #require(world.simulation.events.first)
        #expect(first.number == 1)
        let before = world.simulation.events.map { "\(Format.clock($0.time)) \($0)" }
        let log = try InspectorLog(path: path)
        let inspector = await InspectorController(simulation: world.simulation, keepAlive: world.runner, paused: true, log: log)
        await inspector.press(.character("f"))
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.first == "\(Format.clock(first.time)) \(first)", "\(lines.prefix(3))")
        // Every event of the world's first sync, in order, then the key and what it did.
        #expect(Array(lines.prefix(before.count)) == before)
        let key = try #require(lines.firstIndex { $0.hasPrefix("key ") })
        #expect(key == before.count)
        #expect(lines.dropFirst(key).contains { $0.contains("iPhone: fetch") }, "\(lines.suffix(5))")
    }

    // MARK: Counts in words

    @Test func countsReadAsEnglish() throws {
        #expect(Plural.count(1, "change") == "1 change")
        #expect(Plural.count(0, "change") == "0 changes")
        #expect(Plural.count(2, "batch") == "2 batches")
        let zone = RecordZoneID(zoneName: "Notes", ownerName: "alice")
        let dropped = WorldEvent(number: 1, time: 0, device: "Mac", kind: .sync(.zoneDeleted(
            scope: .private, zoneID: zone, reason: .deleted, recordsRemoved: 1, pendingChangesDropped: 0)))
        #expect("\(dropped)".contains("1 record)"), "\(dropped)")
        let message = try #require(InspectorReducer.notable(dropped))
        #expect(message.text.hasSuffix("dropped 1 record."), "\(message.text)")
        let purged = WorldEvent(number: 2, time: 0, device: "Mac", kind: .sync(.zonePurged(
            scope: .private, zoneID: zone, recordsRemoved: 1, pendingChangesDropped: 0)))
        #expect(InspectorReducer.notable(purged)?.text.contains("wiped 1 record; it will not upload it again") == true)
    }
}
