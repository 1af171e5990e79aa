import Foundation
import SyncCore
import SyncScenario
import SyncScopeAssets
import Testing
@testable import SyncScenarioRunner

/// A small scenario: the iPhone saves two notes, the Mac fetches them.
let twoNotes = """
    name: two-notes
    seed: 5
    users: [alice]
    devices:
      - {name: iPhone, user: alice}
      - {name: Mac, user: alice}
    steps:
      - say: Two notes.
      - createZone: {device: iPhone, zone: Notes}
      - save: {device: iPhone, zone: Notes, record: note-1, type: Note, fields: {title: One}}
      - save: {device: iPhone, zone: Notes, record: note-2, type: Note, fields: {title: Two}}
      - send: iPhone
      - fetch: {device: Mac, zone: Notes, token: nil}
      - expect: {lastFetch: {records: [note-1, note-2]}}

    """

func runner(_ yaml: String, file: String = "test.yaml", seed: UInt64? = nil) throws -> ScenarioRunner {
    try ScenarioRunner(scenario: try ScenarioParser.parse(yaml: yaml, fileName: file), seed: seed)
}

/// Every transcript line of a whole run, as text.
func textTranscript(_ runner: ScenarioRunner) async -> (String, ScenarioFailure?) {
    let failure = await runner.runToEnd()
    return (runner.transcript.compactMap(TranscriptFormatter.text).joined(separator: "\n"), failure)
}

@Suite("Running scenarios step by step")
struct RunnerTests {
    @Test func stepsRunOneAtATimeThenTheEndIsReported() async throws {
        let runner = try runner(twoNotes)
        var names: [String] = []
        while true {
            let outcome = await runner.runNextStep()
            if outcome.isEndOfScenario { break }
            #expect(outcome.failure == nil, "\(String(describing: outcome.failure))")
            #expect(outcome.index == names.count)
            names.append(outcome.step?.kind.name ?? "?")
        }
        #expect(names == ["say", "createZone", "save", "save", "send", "fetch", "lastFetch"])
        #expect(runner.isFinished)
        #expect(runner.checksPassed == 1)
        // Asking again at the end changes nothing.
        #expect(await runner.runNextStep().isEndOfScenario)
    }

    @Test func aStepsEventsStartWithItsHeaderAndShowWhatItReceived() async throws {
        let runner = try runner(twoNotes)
        for _ in 0..<5 { _ = await runner.runNextStep() }
        let fetch = await runner.runNextStep()
        guard case .step(5, "fetch", let location, _, .action)? = fetch.events.first?.kind else {
            Issue.record("the fetch's events do not start with its header: \(fetch.events)")
            return
        }
        #expect(location.line == 13)
        let batches = fetch.events.compactMap { event -> ZoneChangesBatch? in
            if case .zoneChanges("Mac", .private, 0, let batch) = event.kind { return batch }
            return nil
        }
        #expect(batches.count == 1)
        #expect(batches.first?.changes.map(\.recordID.recordName) == ["note-1", "note-2"])
    }

    @Test func aFailedCheckNamesTheFileTheLineAndWhatDiffered() async throws {
        let yaml = twoNotes.replacingOccurrences(of: "records: [note-1, note-2]", with: "records: [note-2, note-1], moreComing: true")
        let runner = try runner(yaml, file: "lessons/wrong.yaml")
        let failure = try #require(await runner.runToEnd())
        #expect(failure.location == SourceLocation(file: "lessons/wrong.yaml", line: 14, column: 14))
        #expect(failure.stepName == "lastFetch")
        #expect(failure.message.contains("records: expected [note-2, note-1], got [note-1, note-2]"))
        #expect(failure.message.contains("moreComing: expected true, got false"))
        #expect(failure.description.hasPrefix("lessons/wrong.yaml:14:14: error: lastFetch failed: "))
        #expect(runner.firstFailure == failure)
    }

    @Test func anUnexpectedErrorStopsTheRunButAnErrorCheckRightAfterExpectsIt() async throws {
        let failing = """
            users: [alice]
            devices: [{name: Mac, user: alice}]
            steps:
              - fetch: {device: Mac, zone: Missing, token: nil}
              - say: nothing checks the error
            """
        let stopped = try runner(failing)
        let failure = try #require(await stopped.runToEnd())
        #expect(failure.stepName == "fetch")
        #expect(failure.location.line == 4)
        #expect(failure.message.hasPrefix("zoneNotFound (ZONE_NOT_FOUND): "))

        let expected = try runner(failing.replacingOccurrences(
            of: "  - say: nothing checks the error",
            with: "  - say: the next check expects it\n  - expect: {error: {code: zoneNotFound, reasonContains: Missing}}"))
        #expect(await expected.runToEnd() == nil)
        #expect(expected.checksPassed == 1)
    }

    @Test func resetStartsOverInAFreshWorldAndRunsTheSameWay() async throws {
        let runner = try runner(twoNotes)
        let (first, _) = await textTranscript(runner)
        let firstWorld = runner.simulation
        try runner.reset()
        #expect(runner.nextStepIndex == 0)
        #expect(runner.transcript.isEmpty)
        #expect(runner.simulation !== firstWorld)
        let mac = try #require(runner.simulation.device(named: "Mac"))
        #expect(mac.cachedRecords(in: RecordZoneID(zoneName: "Notes", ownerName: "alice")).isEmpty)
        let (second, failure) = await textTranscript(runner)
        #expect(failure == nil)
        #expect(second == first)
    }

    @Test func theSameSeedGivesTheSameTranscriptAndAnotherSeedOtherTokens() async throws {
        let (a, _) = await textTranscript(try runner(twoNotes, seed: 11))
        let (b, _) = await textTranscript(try runner(twoNotes, seed: 11))
        let (c, failure) = await textTranscript(try runner(twoNotes, seed: 12))
        #expect(a == b)
        #expect(a != c)
        #expect(failure == nil)
        #expect(a.contains("seed 11"))
    }

    @Test func aSaveWithSavePolicyAllKeysOverwritesTheServersNewerRecord() async throws {
        let runner = try runner("""
            users: [alice]
            devices: [{name: iPhone, user: alice}, {name: Mac, user: alice}]
            steps:
              - createZone: {device: iPhone, zone: Notes}
              - save: {device: iPhone, zone: Notes, record: n, type: Note, fields: {title: A, done: false}}
              - send: iPhone
              - sync: Mac
              - save: {device: iPhone, zone: Notes, record: n, fields: {title: B}}
              - send: iPhone
              - save: {device: Mac, zone: Notes, record: n, fields: {done: true}, savePolicy: allKeys}
              - send: Mac
              - expect: {error: none, lastSend: {device: Mac, saved: [n], conflicts: []}}
              - sync: iPhone
              - expect: {cache: {device: iPhone, zone: Notes, records: [{record: n, fields: {title: A, done: true}}]}}
            """)
        let failure = await runner.runToEnd()
        #expect(failure == nil, "\(String(describing: failure))")
    }

    @Test func aSaveWithSavePolicyChangedKeysKeepsTheServersNewerOtherFields() async throws {
        let runner = try runner("""
            users: [alice]
            devices: [{name: iPhone, user: alice}, {name: Mac, user: alice}]
            steps:
              - createZone: {device: iPhone, zone: Notes}
              - save: {device: iPhone, zone: Notes, record: n, type: Note, fields: {title: A, done: false}}
              - send: iPhone
              - sync: Mac
              - save: {device: iPhone, zone: Notes, record: n, fields: {title: B}}
              - send: iPhone
              - save: {device: Mac, zone: Notes, record: n, fields: {done: true}, savePolicy: changedKeys}
              - expect: {pending: {device: Mac, records: [n]}}
              - send: Mac
              - expect: {error: none, lastSend: {device: Mac, saved: [n], conflicts: []}}
              - sync: iPhone
              - expect: {cache: {device: iPhone, zone: Notes, records: [{record: n, fields: {title: B, done: true}}]}}
            """)
        let failure = await runner.runToEnd()
        #expect(failure == nil, "\(String(describing: failure))")
    }

    @Test func sendingWithoutMergingLeavesTheChangeQueuedWithTheServersError() async throws {
        let runner = try runner("""
            users: [alice]
            devices: [{name: iPhone, user: alice}, {name: Mac, user: alice}]
            steps:
              - createZone: {device: iPhone, zone: Notes}
              - save: {device: iPhone, zone: Notes, record: n, type: Note, fields: {title: A}}
              - send: iPhone
              - sync: Mac
              - save: {device: iPhone, zone: Notes, record: n, fields: {title: B}}
              - send: iPhone
              - save: {device: Mac, zone: Notes, record: n, fields: {title: C}}
              - send: {device: Mac, mergeConflicts: false}
              - expect: {error: serverRecordChanged}
            """)
        #expect(await runner.runToEnd() == nil)
        let mac = try #require(runner.simulation.device(named: "Mac"))
        #expect(mac.pendingChangeCount == 1)
        #expect(mac.cachedRecords(in: RecordZoneID(zoneName: "Notes", ownerName: "alice")).first?["title"] == .string("C"))
    }

    @Test func aDeviceOfflineCannotFetchAndSaysWhy() async throws {
        let runner = try runner("""
            users: [alice]
            devices: [{name: Mac, user: alice}]
            steps:
              - offline: Mac
              - fetch: Mac
              - expect: {error: {code: networkFailure, reasonContains: "Mac is offline"}}
            """)
        #expect(await runner.runToEnd() == nil)
    }

    @Test func jsonEventsAreOneObjectEachShapedLikeTheWireDictionaries() async throws {
        let runner = try runner(twoNotes)
        _ = await runner.runToEnd()
        var zoneChanges: [[String: Any]] = []
        for event in runner.transcript {
            let line = try #require(TranscriptFormatter.json(event))
            #expect(!line.contains("\n"))
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["event"] is String)
            #expect(object["time"] is Int)
            if object["event"] as? String == "zoneChanges" { zoneChanges.append(object) }
        }
        let batch = try #require(zoneChanges.first)
        #expect(batch["device"] as? String == "Mac")
        #expect(batch["moreComing"] as? Bool == false)
        #expect(batch["syncToken"] is String)
        #expect((batch["zoneID"] as? [String: Any])?["zoneName"] as? String == "Notes")
        let records = try #require(batch["records"] as? [[String: Any]])
        #expect(records.map { $0["recordName"] as? String } == ["note-1", "note-2"])
        let title = (records.first?["fields"] as? [String: Any])?["title"] as? [String: Any]
        #expect(title?["value"] as? String == "One")
    }

    @Test func everyLessonPassesAndTheDemoWorldRuns() async throws {
        for lesson in AssetCatalog.lessons() {
            let runner = try ScenarioRunner(scenario: try ScenarioParser.parse(fileAt: lesson.url))
            let failure = await runner.runToEnd()
            #expect(failure == nil, "\(lesson.name): \(String(describing: failure))")
        }
        let demoURL = try #require(AssetCatalog.demoScenarioURL)
        let demo = try ScenarioRunner(scenario: try ScenarioParser.parse(fileAt: demoURL))
        #expect(await demo.runToEnd() == nil)
        // The Mac keeps its cache in SQLite, and it is filled like the others.
        let mac = try #require(demo.simulation.device(named: "Mac"))
        #expect(!mac.cachedRecords(in: RecordZoneID(zoneName: "Notes", ownerName: "alice")).isEmpty)
    }

    @Test func lessonsAreFoundByNameAndNamedTheSameWhereverTheyAreInstalled() throws {
        let scenario = try ScenarioLocator.load("3")
        #expect(scenario.name == "batches")
        // By name: the file is inside the program, not at a path the user has.
        #expect(scenario.steps.first?.location.file == "lesson batches")
        #expect(throws: ScenarioFileError.self) { try ScenarioLocator.load("no-such-lesson") }
    }

    @Test func aMisspelledLessonNameSuggestsTheClosestLesson() {
        do {
            _ = try ScenarioLocator.load("first-fetc")
            Issue.record("'first-fetc' is not a lesson")
        } catch {
            #expect(error.diagnostics.map(\.hint).first??.hasPrefix("did you mean 'first-fetch'?; lessons: ") == true)
        }
        do {
            _ = try ScenarioLocator.load("no-such-lesson")
            Issue.record("'no-such-lesson' is not a lesson")
        } catch {
            #expect(error.diagnostics.map(\.hint).first??.contains("did you mean") == false)
        }
    }

    @Test func aDetachedRunnerNoLongerRecordsWhatTheSimulationDoes() async throws {
        let runner = try runner(twoNotes)
        _ = await runner.runToEnd()
        var forwarded = 0
        runner.simulationEventObserver = { _ in forwarded += 1 }
        runner.detach()
        let before = runner.transcript.count
        let mac = try #require(runner.simulation.device(named: "Mac"))
        await runner.simulation.fetch(on: mac)
        #expect(runner.transcript.count == before)
        #expect(forwarded > 0)
        #expect(runner.tap.drain().isEmpty, "a detached runner keeps nothing it would never take")
    }
}

/// What the transcript shows of the requests the devices really made.
@Suite("Observing the devices' fetches")
struct ObservedFetchTests {
    static let fiveNotes = """
        users: [alice]
        devices: [{name: iPhone, user: alice}, {name: Mac, user: alice}]
        steps:
          - createZone: {device: iPhone, zone: Notes}
          - burst: {device: iPhone, zone: Notes, count: 5, type: Note, send: end}
        """

    /// The Mac's `changes/zone` lines: batch number, record names, moreComing.
    static func zoneLines(_ events: [TranscriptEvent], device: String = "Mac") -> [(Int, [String], Bool)] {
        events.compactMap { event in
            guard case .zoneChanges(device, _, let index, let batch) = event.kind else { return nil }
            let names = batch.changes.compactMap { change -> String? in
                if case .changed(let record) = change { return record.recordID.recordName }
                return nil
            }
            return (index, names, batch.moreComing)
        }
    }

    @Test func anEngineFetchWithAResultsLimitIsShownBatchByBatchAsTheServerAnswered() async throws {
        let runner = try runner(Self.fiveNotes)
        #expect(await runner.runToEnd() == nil)
        let mac = try #require(runner.simulation.device(named: "Mac"))
        let before = runner.transcript.count
        await runner.simulation.fetch(on: mac, resultsLimit: 2)
        runner.takeObservedFetches()
        let lines = Self.zoneLines(Array(runner.transcript.dropFirst(before)))
        #expect(lines.map(\.0) == [0, 1, 2])
        #expect(lines.map(\.1.count) == [2, 2, 1])
        #expect(lines.map(\.2) == [true, true, false])
        #expect(Set(lines.flatMap(\.1)).count == 5)
        #expect(!runner.transcript.contains { if case .note(_, let text) = $0.kind { text.contains("received a") } else { false } })
    }

    @Test func oneBatchAtATimeIsShownAsTheOneBatchEachRequestGot() async throws {
        let runner = try runner(Self.fiveNotes)
        #expect(await runner.runToEnd() == nil)
        let mac = try #require(runner.simulation.device(named: "Mac"))
        let before = runner.transcript.count
        for _ in 1...4 { await runner.simulation.fetchOneBatch(on: mac, resultsLimit: 2) }
        runner.takeObservedFetches()
        let events = Array(runner.transcript.dropFirst(before))
        let databaseBatches = events.compactMap { event -> Int? in
            if case .databaseChanges("Mac", _, let index, _) = event.kind { index } else { nil }
        }
        let zoneLines = Self.zoneLines(events)
        // Each call made one request, which has its line: the database batch
        // first, then the zone's batches, which continue one fetch (0, 1, 2).
        #expect(databaseBatches == [0])
        #expect(zoneLines.map(\.0) == [0, 1, 2])
        #expect(zoneLines.map(\.1.count) == [2, 2, 1])
        #expect(zoneLines.map(\.2) == [true, true, false])
        #expect(mac.cachedRecords(in: RecordZoneID(zoneName: "Notes", ownerName: "alice")).count == zoneLines.flatMap(\.1).count)
    }

    @Test func aSyncShowsTheDatabaseAnswerBeforeWhatTheEngineDidWithIt() async throws {
        let runner = try runner("""
            users: [alice]
            devices: [{name: iPhone, user: alice}, {name: Mac, user: alice}]
            steps:
              - createZone: {device: iPhone, zone: Notes}
              - save: {device: iPhone, zone: Notes, record: n, type: Note, fields: {title: A}}
              - send: iPhone
              - sync: Mac
              - deleteZone: {device: iPhone, zone: Notes}
              - sync: Mac
              - expect: {lastFetch: {device: Mac, deletedZones: [Notes]}}
            """)
        #expect(await runner.runToEnd() == nil)
        let lastSync = try #require(runner.transcript.lastIndex { if case .step(_, "sync", _, _, _) = $0.kind { true } else { false } })
        let mac = runner.transcript[lastSync...].filter { event in
            switch event.kind {
            case .databaseChanges("Mac", .private, _, _): true
            case .note("Mac", let text): text.contains("Notes")
            default: false
            }
        }
        #expect(mac.count == 2)
        if case .databaseChanges = mac.first?.kind {} else { Issue.record("the answer should come first: \(mac)") }
    }

    @Test func scenarioFetchStepsAreShownOnceEachAndNumberedFromTheirFirstBatch() async throws {
        let runner = try runner(Self.fiveNotes + """

              - fetch: {device: Mac, zone: Notes, token: nil, resultsLimit: 2, interruptAfter: 2}
              - fetch: {device: Mac, zone: Notes, resultsLimit: 2}
            """)
        #expect(await runner.runToEnd() == nil)
        #expect(Self.zoneLines(runner.transcript).map(\.0) == [0, 1, 0])
        #expect(Self.zoneLines(runner.transcript).map(\.1.count) == [2, 2, 1])
    }
}

@Suite("Transcript wording")
struct TranscriptWordingTests {
    /// "keeping the last 1 changes" read wrong; counts agree with their noun.
    @Test func compactionCountsAgreeWithTheirNoun() async throws {
        for (keep, words) in [(1, "keeping the last 1 change"), (2, "keeping the last 2 changes")] {
            let yaml = twoNotes.replacingOccurrences(
                of: "  - expect: {lastFetch: {records: [note-1, note-2]}}\n",
                with: "  - compact: {user: alice, zone: Notes, keepLast: \(keep)}\n")
            let (text, failure) = await textTranscript(try runner(yaml))
            #expect(failure == nil)
            // Both the step's header and the note it leaves say it.
            #expect(text.components(separatedBy: words).count == 3, "\(text)")
            #expect(!text.contains("last 1 changes"), "\(text)")
        }
    }
}

/// The `CKShare` steps' refusals, as Apple's codes: a READ_ONLY participant
/// cannot write, an invitee cannot accept a share that does not exist, the
/// owner cannot remove someone who is not a participant.
@Suite("CKShare steps running")
struct ShareStepRunnerTests {
    static let prelude = """
        seed: 3
        users: [alice, bob, carol]
        devices:
          - {name: iPhone, user: alice}
          - {name: iPad, user: bob}
          - {name: Pixel, user: carol}
        steps:
          - createZone: {device: iPhone, zone: Trip}
        """

    @Test func aReadOnlyParticipantCannotWriteAndStrangersCannotAccept() async throws {
        let (text, failure) = await textTranscript(try runner(Self.prelude + """

              - acceptShare: {device: iPad, zone: Trip@alice}
              - expect: {error: {code: unknownItem, reasonContains: has no share}}
              - saveShare: {device: iPhone, zone: Trip, participants: {bob: READ_ONLY}}
              - acceptShare: {device: iPad, zone: Trip@alice}
              - save: {device: iPad, database: shared, zone: Trip@alice, record: item-1, type: Item, fields: {title: Hat}}
              - send: iPad
              - expect: {error: {code: permissionFailure, reasonContains: read-only}}
              - acceptShare: {device: Pixel, zone: Trip@alice}
              - expect: {error: {code: permissionFailure, reasonContains: not shared with you}}
              - removeParticipant: {device: iPhone, zone: Trip, participants: [carol]}
              - expect: {error: {code: invalidArguments, reasonContains: not a participant}}
              - resolveShare: {device: Pixel, zone: Trip@alice}
              - expect: {error: permissionFailure}
            """))
        #expect(failure == nil, "\(String(describing: failure))\n\(text)")
        #expect(text.contains("records/accept"))
        #expect(text.contains("bob is ACCEPTED with READ_ONLY"))
    }

    @Test func aPublicShareLetsAnyoneWithTheURLAccept() async throws {
        let (text, failure) = await textTranscript(try runner(Self.prelude + """

              - saveShare: {device: iPhone, zone: Trip, participants: {bob: READ_WRITE}, publicPermission: READ_ONLY}
              - resolveShare: {device: Pixel, zone: Trip@alice}
              - acceptShare: {device: Pixel, zone: Trip@alice}
              - fetch: {device: Pixel, database: shared, token: nil}
              - expect: {lastFetch: {zones: [Trip@alice]}}
            """))
        #expect(failure == nil, "\(String(describing: failure))\n\(text)")
        #expect(text.contains("carol is not a participant (public READ_ONLY)"))
        #expect(text.contains("carol is ACCEPTED with READ_ONLY"))
    }
}
