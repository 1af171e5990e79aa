import Foundation
import SyncCore
import SyncWire

/// The answer: the rules in force after the call, and how many faults of each kind were injected so far.
public struct WireFaultsResponse: Codable, Sendable, Hashable {
    public var rules: [WireFaultRule]
    public var injected: [String: Int]
    public var added: [Int]?
    public var removed: Int?

    public init(rules: [WireFaultRule], injected: [String: Int], added: [Int]? = nil, removed: Int? = nil) {
        self.rules = rules
        self.injected = injected
        self.added = added
        self.removed = removed
    }
}
