import Foundation
import SyncCore
import SyncServer
import SyncSimulation
import SyncWorlds
import Testing

/// Random histories with every kind of fault on (throttling, busy zones,
/// outages, quota, internal errors, item failures, ambiguous commits,
/// latency, dropped, delayed, duplicated and reordered pushes, read lag):
/// once the faults stop and every device has synced, each device's cache
/// must equal the server — and every fault kind must actually have happened.
///
/// `SYNCSCOPE_FAULT_SEEDS=<count>` runs more seeds than the default 300;
/// `syncscope explore` runs the same histories from the command line.
@Suite struct FaultConvergenceTests {
    static let seedCount: UInt64 = 300

    @Test func devicesConvergeWithEveryFaultKind() async throws {
        let count = ProcessInfo.processInfo.environment["SYNCSCOPE_FAULT_SEEDS"].flatMap { UInt64($0) } ?? Self.seedCount
        var counts: [FaultKind: Int] = [:]
        var retries = 0
        var resolved = 0
        for seed in 1...max(1, count) {
            let outcome = await FaultExplorer.run(seed: seed)
            if let divergence = outcome.divergence {
                Issue.record("""
                    seed \(seed) did not converge (replay: syncscope explore --from \(seed) --seeds 1): \(divergence)
                      last steps:
                      \(outcome.steps.suffix(20).joined(separator: "\n  "))
                    """)
                return
            }
            counts.merge(outcome.faultCounts, uniquingKeysWith: +)
            retries += outcome.retries
            resolved += outcome.ambiguousCommitsResolved
        }
        for kind in FaultKind.allCases {
            #expect(counts[kind, default: 0] > 0, "no \(kind.rawValue) fault in \(count) seeds")
        }
        #expect(retries > 0, "no retry")
        #expect(resolved > 0, "no ambiguous commit resolved by a resend")
    }

    @Test func aSeedReplaysExactly() async {
        let first = await FaultExplorer.run(seed: 17)
        let second = await FaultExplorer.run(seed: 17)
        #expect(first.events == second.events)
        #expect(first.steps == second.steps)
        #expect(first.faultCounts == second.faultCounts)
    }

    @Test func onlyTheFaultsAskedForHappen() async {
        let outcome = await FaultExplorer.run(seed: 3, options: FaultExplorer.Options(faults: [.throttled, .pushDrop]))
        #expect(outcome.converged)
        #expect(Set(outcome.faultCounts.keys).isSubset(of: [.throttled, .pushDrop]))
    }
}
