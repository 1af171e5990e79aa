/// What one seed of the test kit did, and whether the devices converged (SyncScope's).
public struct SyncScopeTestReport: Sendable, CustomStringConvertible {
    public let seed: UInt64
    /// Each step of the history, numbered, as a sentence.
    public let steps: [String]
    /// Each device's data after the devices settled.
    public let snapshots: [[String: String]]
    /// Changes still pending on each device after they settled.
    public let pendingCounts: [Int]
    /// The command that runs this seed alone.
    public let replayCommand: String

    public var converged: Bool {
        pendingCounts.allSatisfy { $0 == 0 } && snapshots.dropFirst().allSatisfy { $0 == snapshots.first }
    }

    public var description: String {
        var lines = [converged ? "Seed \(seed) converged." : "Seed \(seed) did not converge.", "Replay: \(replayCommand)", "Steps:"]
        lines += steps.map { "  " + $0 }
        for (index, snapshot) in snapshots.enumerated() {
            let items = snapshot.keys.sorted().map { "\($0)=\(snapshot[$0]!)" }.joined(separator: " ")
            lines.append("Device \(index): \(pendingCounts[index]) pending; \(items.isEmpty ? "(empty)" : items)")
        }
        return lines.joined(separator: "\n")
    }
}

/// The first seed whose devices did not converge; its description is the report.
public struct SyncScopeTestFailure: Error, Sendable, CustomStringConvertible {
    public let report: SyncScopeTestReport

    public var description: String { report.description }
}
