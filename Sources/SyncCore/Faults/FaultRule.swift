import Foundation

/// One rule of a fault plan: which calls, what happens, how often.
public struct FaultRule: Sendable, Hashable, CustomStringConvertible {
    public var effect: FaultEffect
    public var match: FaultMatch
    public var frequency: FaultFrequency

    public init(_ effect: FaultEffect, match: FaultMatch = FaultMatch(), frequency: FaultFrequency = .always) {
        self.effect = effect
        self.match = match
        self.frequency = frequency
    }

    public var description: String {
        "\(effect.kind.rawValue) (\(effect.summary)) on \(match.description), \(frequency.description)"
    }

    /// Whether the rule's effect can apply to this operation at all.
    package func applies(to operation: String) -> Bool {
        switch effect {
        case .pushDrop, .pushDelay, .pushDuplicate, .pushReorder: operation == "push"
        case .readLag: operation == "changes/database"
        case .itemFailures: operation == "records/modify"
        case .ambiguousCommit: FaultCall.mutatingOperations.contains(operation)
        default: operation != "push"
        }
    }
}
