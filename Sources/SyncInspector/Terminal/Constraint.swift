/// How much of a split one part takes.
public enum Constraint: Hashable, Sendable {
    /// Exactly this many cells (less only when there is not enough room).
    case fixed(Int)
    /// A share of what is left after fixed parts, in proportion to the weight.
    case ratio(Int)
    /// Percent of the whole length (taken before ratios, after fixed parts).
    case percent(Int)
    /// The same as `.ratio(1)`.
    public static let fill = Constraint.ratio(1)

    struct Segment: Equatable {
        var offset: Int
        var length: Int
    }

    /// Lays out `constraints` along a line of `total` cells with `spacing`
    /// cells between neighbouring parts. Lengths always add up to at most
    /// `total`; ratio parts share the rest with cumulative rounding so that
    /// nothing is lost or over-allocated.
    static func resolve(_ constraints: [Constraint], total: Int, spacing: Int) -> [Segment] {
        guard !constraints.isEmpty else { return [] }
        let gaps = max(0, spacing) * (constraints.count - 1)
        var remaining = max(0, total - gaps)
        var lengths = [Int](repeating: 0, count: constraints.count)

        // Fixed parts first, in order, each as much as still fits.
        for (index, constraint) in constraints.enumerated() {
            if case .fixed(let n) = constraint {
                let take = min(max(0, n), remaining)
                lengths[index] = take
                remaining -= take
            }
        }
        // Percentages of the whole line.
        let base = max(0, total - gaps)
        for (index, constraint) in constraints.enumerated() {
            if case .percent(let p) = constraint {
                let take = min(base * min(max(0, p), 100) / 100, remaining)
                lengths[index] = take
                remaining -= take
            }
        }
        // Ratios share the rest; cumulative rounding keeps the sum exact.
        let weights = constraints.map { constraint -> Int in
            if case .ratio(let w) = constraint { return max(0, w) }
            return 0
        }
        let totalWeight = weights.reduce(0, +)
        if totalWeight > 0 {
            var cumulativeWeight = 0
            var given = 0
            for (index, weight) in weights.enumerated() where weight > 0 {
                cumulativeWeight += weight
                let target = remaining * cumulativeWeight / totalWeight
                lengths[index] = target - given
                given = target
            }
        }

        var segments: [Segment] = []
        var offset = 0
        for length in lengths {
            segments.append(Segment(offset: min(offset, total), length: length))
            offset += length + max(0, spacing)
        }
        return segments
    }
}
