import Foundation
import SyncCore
import SyncScenario
import SyncScenarioRunner
import SyncServer
import Testing

/// Faults in scenario files: a `faults:` section, `fault:` and `clearFaults:`
/// steps, a device's `retry:`, and `expect: {retries: …}`; every fault kind
/// injected from a file shows in the transcript.
@Suite struct FaultScenarioTests {
    static func world(faults: String = "", steps: String) -> String {
        """
        seed: 4
        users: [alice]
        devices:
          - {name: iPhone, user: alice}
          - {name: Mac, user: alice}
        subscriptions:
          - {user: alice, subscriptionID: all, type: database}
        \(faults)
        steps:
          - createZone: {device: iPhone, zone: Notes}
          - send: iPhone
          - advance: 1s
        \(steps)
        """
    }

    /// One rule per kind, as a file writes it, and a line the transcript must show.
    static let kinds: [(FaultKind, String, String)] = [
        (.throttled, "{kind: throttled, retryAfter: 2s, times: 1}", "THROTTLED, retry in 2 s"),
        (.zoneBusy, "{kind: zoneBusy, retryAfter: 1, times: 1}", "ZONE_BUSY, retry in 1 s"),
        (.serviceUnavailable, "{kind: serviceUnavailable, retryAfter: 5s, times: 1}", "TRY_AGAIN_LATER, retry in 5 s"),
        (.quotaExceeded, "{kind: quotaExceeded, times: 1}", "QUOTA_EXCEEDED"),
        (.internalError, "{kind: internalError, times: 1}", "INTERNAL_ERROR"),
        (.itemFailures, "{kind: itemFailures, code: ZONE_BUSY, retryAfter: 1s, times: 1}", "some items failed with ZONE_BUSY"),
        (.ambiguousCommit, "{kind: ambiguousCommit, operations: [records/modify], times: 1}", "applied, answer lost"),
        (.latency, "{kind: latency, latency: {min: 100ms, max: 200ms}, times: 1}", "latency 1"),
        (.pushDrop, "{kind: pushDrop, device: Mac, times: 1}", "dropped"),
        (.pushDelay, "{kind: pushDelay, delay: 2s, times: 1}", "delayed 2000 ms"),
        (.pushDuplicate, "{kind: pushDuplicate, times: 1}", "duplicate"),
        (.pushReorder, "{kind: pushReorder, times: 1}", "reordered"),
        (.readLag, "{kind: readLag, lag: 3s, device: Mac}", "read lag"),
    ]

    @Test(arguments: kinds.map(\.0))
    func eachFaultKindFromAFileIsInjectedAndShown(_ kind: FaultKind) async throws {
        let (_, rule, shown) = try #require(Self.kinds.first { $0.0 == kind })
        let yaml = Self.world(steps: """
              - fault: \(rule)
              - save: {device: iPhone, zone: Notes, record: n1, type: Note, fields: {title: One}}
              - save: {device: iPhone, zone: Notes, record: n2, type: Note, fields: {title: Two}}
              - send: iPhone
              - advance: 1s
              - save: {device: iPhone, zone: Notes, record: n3, type: Note, fields: {title: Three}}
              - send: iPhone
              - advance: 12s
              - clearFaults: all
              - send: iPhone
              - sync: Mac
              - expect: {cache: {device: Mac, zone: Notes, records: [n1, n2, n3]}}
            """)
        let run = try runner(yaml)
        let (text, _) = await textTranscript(run)
        #expect(text.contains("injected fault"), "\(kind): \(text)")
        #expect(text.contains(shown), "\(kind): no '\(shown)' in\n\(text)")
        #expect(run.simulation.server.injectedFaultCounts[kind, default: 0] > 0)
        // Whatever the fault, nothing was lost once it stopped.
        #expect(run.firstFailure == nil || kind == .quotaExceeded || kind == .internalError, "\(kind): \(String(describing: run.firstFailure))")
    }

    /// The fault comes before the fetch it affected: a read-lagged
    /// `changes/database` line, a delayed `changes/zone` line, each just after
    /// its "injected fault" line; and the same run twice is the same text.
    @Test(arguments: [
        ("{kind: readLag, lag: 3s, device: Mac}", "injected fault: changes/database read lag", "Mac <- changes/database private"),
        ("{kind: latency, latency: 300ms, operations: [changes/zone], device: Mac, times: 1}", "injected fault: changes/zone latency 300 ms", "Mac <- changes/zone Notes"),
    ])
    func aFaultOnAFetchIsShownJustBeforeThatFetch(rule: String, fault: String, fetch: String) async throws {
        let yaml = Self.world(steps: """
              - fault: \(rule)
              - save: {device: iPhone, zone: Notes, record: n1, type: Note, fields: {title: One}}
              - send: iPhone
              - sync: Mac
            """)
        let (text, _) = await textTranscript(try runner(yaml))
        let lines = text.split(separator: "\n").map(String.init)
        let index = try #require(lines.firstIndex { $0.contains(fault) }, "\(text)")
        #expect(lines.indices.contains(index + 1) && lines[index + 1].contains(fetch), "the fetch it hit comes right after:\n\(text)")
        #expect(index > 0 && !lines[index - 1].contains(fetch), "not just before:\n\(text)")
        let (again, _) = await textTranscript(try runner(yaml))
        #expect(again == text)
    }

    @Test func aFaultsSectionAppliesFromTheFirstStepAndClearFaultsStopsIt() async throws {
        let yaml = Self.world(
            faults: "faults:\n  - {kind: throttled, retryAfter: 1s, operations: [records/modify]}",
            steps: """
              - save: {device: iPhone, zone: Notes, record: n1, type: Note, fields: {title: One}}
              - send: iPhone
              - expect:
                  error: requestRateLimited
                  retries: {device: iPhone, count: 4, code: THROTTLED, waited: 4s, honoredRetryAfter: true}
                  pending: {device: iPhone, count: 1}
              - clearFaults: [throttled]
              - send: iPhone
              - expect:
                  error: none
                  pending: {device: iPhone, count: 0}
            """)
        let run = try runner(yaml)
        let failure = await run.runToEnd()
        #expect(failure == nil, "\(String(describing: failure))")
        #expect(run.simulation.server.faultRules.isEmpty)
    }

    @Test func aFailingRetriesCheckSaysWhatHappened() async throws {
        let yaml = Self.world(steps: """
              - fault: {kind: zoneBusy, retryAfter: 2s, operations: [records/modify], times: 1}
              - save: {device: iPhone, zone: Notes, record: n1, type: Note, fields: {title: One}}
              - send: iPhone
              - expect: {retries: {device: iPhone, count: 2}}
            """)
        let failure = await (try runner(yaml)).runToEnd()
        let message = try #require(failure?.message)
        #expect(message.contains("expected 2, got 1"), "\(message)")
        #expect(message.contains("ZONE_BUSY, retry in 2 s (retryAfter), attempt 1"), "\(message)")
    }

    @Test func aNaiveDeviceRetriesAtOnce() async throws {
        let yaml = """
            users: [alice]
            devices:
              - {name: iPhone, user: alice, retry: naive}
            steps:
              - createZone: {device: iPhone, zone: Notes}
              - send: iPhone
              - fault: {kind: throttled, retryAfter: 5s, times: 2}
              - save: {device: iPhone, zone: Notes, record: n1, type: Note, fields: {title: One}}
              - send: iPhone
              - expect: {retries: {device: iPhone, count: 2, waited: 0ms, honoredRetryAfter: false}, pending: {device: iPhone, count: 0}}
            """
        let failure = await (try runner(yaml)).runToEnd()
        #expect(failure == nil, "\(String(describing: failure))")
    }

    @Test(arguments: [
        ("{kind: throttle}", "unknown fault kind 'throttle'"),
        ("{kind: latency}", "a latency fault needs 'latency'"),
        ("{kind: readLag}", "a readLag fault needs 'lag'"),
        ("{kind: pushDrop, probability: 2}", "probability must be a number from 0 to 1"),
        ("{kind: internalError, operations: [records/modfy]}", "unknown operation 'records/modfy'"),
        ("{kind: pushDrop, device: Watch}", "device 'Watch' is not declared"),
        ("{kind: throttled, every: 0}", "every must be at least 1"),
        ("{kind: latency, latency: {min: 5ms, max: 1ms}}", "is more than its max"),
    ])
    func badFaultRulesAreReportedWhereTheyAre(_ rule: String, _ message: String) {
        let yaml = Self.world(steps: "  - fault: \(rule)")
        do {
            _ = try ScenarioParser.parse(yaml: yaml, fileName: "bad.yaml")
            Issue.record("\(rule) was accepted")
        } catch {
            #expect(error.description.contains(message), "\(error.description)")
            #expect(error.description.contains("bad.yaml:"), "\(error.description)")
        }
    }

    @Test func clearFaultsAcceptsAllOrKindsOnly() {
        #expect(throws: ScenarioFileError.self) {
            _ = try ScenarioParser.parse(yaml: Self.world(steps: "  - clearFaults: everything"), fileName: "bad.yaml")
        }
        let scenario = try? ScenarioParser.parse(yaml: Self.world(steps: "  - clearFaults: [pushDrop, readLag]"), fileName: "ok.yaml")
        #expect(scenario?.steps.last?.kind == .clearFaults([.pushDrop, .readLag]))
    }
}
