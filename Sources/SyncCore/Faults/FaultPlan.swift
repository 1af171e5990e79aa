import Foundation

/// A list of fault rules: the server (engine layer) consults it on every
/// call, in rule order. Empty: nothing is injected, at no cost.
public struct FaultPlan: Sendable, Hashable {
    public var rules: [FaultRule]

    public init(_ rules: [FaultRule] = []) {
        self.rules = rules
    }

    public var isEmpty: Bool { rules.isEmpty }
}
