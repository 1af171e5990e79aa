/// A small, fast, seedable random number generator (SplitMix64).
///
/// Every random choice in the simulation comes from one of these, so a seed
/// replays a run exactly.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A generator for a sub-part of the simulation, independent of how many
    /// numbers this one has handed out so far.
    public func derived(_ salt: UInt64) -> SeededRandom {
        var copy = SeededRandom(seed: state ^ (salt &* 0xD6E8_FEB8_6659_FD93))
        _ = copy.next()
        return copy
    }

    public mutating func bytes(_ count: Int) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(count)
        while result.count < count {
            var word = next()
            for _ in 0..<8 where result.count < count {
                result.append(UInt8(truncatingIfNeeded: word))
                word >>= 8
            }
        }
        return result
    }
}
