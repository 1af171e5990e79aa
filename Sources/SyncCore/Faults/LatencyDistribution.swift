import Foundation

/// How long a request is delayed.
public enum LatencyDistribution: Sendable, Hashable {
    /// Always this long.
    case fixed(Milliseconds)
    /// Evenly spread between the two bounds (inclusive).
    case uniform(min: Milliseconds, max: Milliseconds)
    /// Exponentially distributed with this mean (a long tail), capped at 20 × the mean.
    case exponential(mean: Milliseconds)

    package func sample(_ random: inout SeededRandom) -> Milliseconds {
        switch self {
        case .fixed(let ms):
            return max(0, ms)
        case .uniform(let low, let high):
            let lo = max(0, min(low, high)), hi = max(0, max(low, high))
            return lo + Milliseconds(random.next() % UInt64(hi - lo + 1))
        case .exponential(let mean):
            guard mean > 0 else { return 0 }
            let unit = Double(random.next() >> 11) / Double(1 << 53)  // [0, 1)
            let value = -Double(mean) * log1p(-unit)
            return Milliseconds(min(value, Double(mean) * 20).rounded())
        }
    }

    public var description: String {
        switch self {
        case .fixed(let ms): "\(ms) ms"
        case .uniform(let lo, let hi): "\(lo)–\(hi) ms"
        case .exponential(let mean): "~\(mean) ms (exponential)"
        }
    }
}
