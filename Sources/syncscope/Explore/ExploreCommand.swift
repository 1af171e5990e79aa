import ArgumentParser
import Foundation
import SyncCore
import SyncServer
import SyncSimulation
import SyncWorlds

/// `syncscope explore`: random histories with faults, seed after seed, until one does not converge.
struct ExploreCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explore",
        abstract: "Run random histories with faults until the devices do not converge.",
        discussion: """
            Each seed builds a world (alice's devices and bob's, a zone alice shares with him), a fault plan and \
            a history of saves, deletions, zone changes, fetches, syncs, connectivity changes and waits, all from \
            the seed. It plays on the virtual clock with the faults on, then stops the faults, brings every device \
            online, syncs each one and checks that every device's cache equals the server. The same seed always \
            plays the same way, so a failing seed is a bug you can replay.

            It stops at the first seed that does not converge and prints the seed, the command that replays it, \
            and the steps and events that led there (exit status 1).

            Fault kinds: \(FaultKind.allCases.map(\.rawValue).joined(separator: ", ")).

            Examples:
              syncscope explore --seeds 1000
              syncscope explore --seeds 100 --from 5000 --faults throttled,ambiguousCommit --devices 4
              syncscope explore --seeds 100000     (a release build of syncscope: much faster)
            """
    )

    @Option(parsing: .unconditional, help: "How many seeds to run, 1 to 100,000,000.")
    var seeds: Int = 1_000

    @Option(parsing: .unconditional, help: "The first seed (at least 1).")
    var from: Int = 1

    @Option(help: "The fault kinds: all, none, or a comma-separated list of kinds.")
    var faults: String = "all"

    @Option(parsing: .unconditional, help: "Devices per world, 2 to 8 (the last is bob's, the others alice's).")
    var devices: Int = 3

    @Flag(help: "No progress line (for logs).")
    var quiet = false

    func validate() throws {
        guard (1...100_000_000).contains(seeds) else { throw ValidationError("--seeds must be 1 to 100000000 (got \(seeds)).") }
        guard from >= 1 else { throw ValidationError("--from must be at least 1 (got \(from)).") }
        guard (2...8).contains(devices) else { throw ValidationError("--devices must be 2 to 8 (got \(devices)).") }
        _ = try Self.parseFaults(faults)
    }

    static func parseFaults(_ text: String) throws -> Set<FaultKind> {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed == "all" { return Set(FaultKind.allCases) }
        if trimmed == "none" { return [] }
        var kinds = Set<FaultKind>()
        for word in trimmed.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !word.isEmpty {
            guard let kind = FaultKind(rawValue: word) else {
                let known = FaultKind.allCases.map(\.rawValue)
                let close = known.first { $0.lowercased() == word.lowercased() }
                    ?? known.first { $0.lowercased().hasPrefix(word.lowercased().prefix(4)) }
                throw ValidationError(
                    "--faults: unknown fault kind '\(word)'" + (close.map { "; did you mean '\($0)'?" } ?? "")
                        + " Known kinds: all, none, \(known.joined(separator: ", ")).")
            }
            kinds.insert(kind)
        }
        guard !kinds.isEmpty else { throw ValidationError("--faults is empty: give all, none, or kinds such as throttled,pushDrop.") }
        return kinds
    }

    func run() async throws {
        let kinds = try Self.parseFaults(faults)
        let options = FaultExplorer.Options(faults: kinds, devices: devices)
        let first = UInt64(from)
        let last = first + UInt64(seeds) - 1
        let start = ContinuousClock.now
        var counts: [FaultKind: Int] = [:]
        var retries = 0
        var lastProgress: ContinuousClock.Instant?
        let interactive = !quiet && isatty(STDERR_FILENO) != 0
        for seed in first...last {
            let outcome = await FaultExplorer.run(seed: seed, options: options)
            counts.merge(outcome.faultCounts, uniquingKeysWith: +)
            retries += outcome.retries
            if let divergence = outcome.divergence {
                if interactive { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
                print(report(outcome, divergence: divergence, passed: Int(seed - first)))
                throw ExitCode(1)
            }
            let now = ContinuousClock.now
            if !quiet, lastProgress.map({ (now - $0) / .seconds(1) >= (interactive ? 0.2 : 10) }) ?? true || seed == last {
                lastProgress = now
                let done = Int(seed - first + 1)
                let rate = Double(done) / max(0.001, (now - start) / .seconds(1))
                let line = "seed \(seed) (\(done)/\(seeds)), all converged, \(counts.values.reduce(0, +)) faults injected, \(retries) retries, \(String(format: "%.0f", rate)) seeds/s"
                FileHandle.standardError.write(Data((interactive ? "\r\u{1B}[K" + line : line + "\n").utf8))
            }
        }
        if interactive { FileHandle.standardError.write(Data("\n".utf8)) }
        let elapsed = (ContinuousClock.now - start) / .seconds(1)
        print("\(seeds) seed\(seeds == 1 ? "" : "s") (\(first)…\(last)) converged in \(String(format: "%.1f", elapsed)) s.")
        print("faults injected: " + FaultKind.allCases.compactMap { kind in counts[kind].map { "\(kind.rawValue) \($0)" } }.joined(separator: ", "))
        print("retries: \(retries)")
    }

    private func report(_ outcome: FaultExplorer.Outcome, divergence: String, passed: Int) -> String {
        var lines = [
            "seed \(outcome.seed) did not converge (after \(passed) seed\(passed == 1 ? "" : "s") that did).",
            "",
            divergence,
            "",
            "replay it: syncscope explore --from \(outcome.seed) --seeds 1 --faults \(faults) --devices \(devices)",
            "",
            "steps:",
        ]
        lines += outcome.steps.enumerated().map { "  \($0.offset + 1). \($0.element)" }
        lines.append("")
        lines.append("last events:")
        lines += outcome.events.suffix(60).map { "  \($0)" }
        return lines.joined(separator: "\n")
    }
}
