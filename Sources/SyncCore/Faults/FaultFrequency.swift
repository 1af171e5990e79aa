import Foundation

/// How often a matching call is hit. All given conditions must hold; none
/// given: every matching call.
public struct FaultFrequency: Sendable, Hashable {
    /// Chance per matching call, 0…1 (drawn from the world's seeded random source).
    public var probability: Double?
    /// Only every Nth matching call (the Nth, 2Nth…).
    public var everyNth: Int?
    /// At most this many times in all (`next: 3`: the next three matching calls).
    public var times: Int?
    /// Active from this long after the rule was added…
    public var startAfter: Milliseconds?
    /// …for this long (then the rule does nothing more).
    public var duration: Milliseconds?

    public init(probability: Double? = nil, everyNth: Int? = nil, times: Int? = nil, startAfter: Milliseconds? = nil, duration: Milliseconds? = nil) {
        self.probability = probability
        self.everyNth = everyNth
        self.times = times
        self.startAfter = startAfter
        self.duration = duration
    }

    public static let always = FaultFrequency()

    public var description: String {
        var parts: [String] = []
        if let probability { parts.append("p=\(probability)") }
        if let everyNth { parts.append("every \(everyNth)th") }
        if let times { parts.append("next \(times)") }
        if let startAfter { parts.append("after \(startAfter) ms") }
        if let duration { parts.append("for \(duration) ms") }
        return parts.isEmpty ? "always" : parts.joined(separator: ", ")
    }
}
