import Foundation
import SyncCore

/// The engine's paged-query snapshots, bounded in count, size and idle
/// time. Not part of the engine's state: never journaled, exported or
/// replayed, and it never reads the seeded random source (snapshot numbers
/// come from a counter), so paging changes no transcript.
struct QuerySnapshots {
    var limits = QueryPagingLimits()
    private(set) var snapshots: [UInt64: QuerySnapshot] = [:]
    private var nextNumber: UInt64 = 1
    private var useCounter: UInt64 = 0
    private(set) var totalEntries = 0

    /// Drops snapshots idle for longer than the limit.
    mutating func expire(now: Milliseconds) {
        let expired = snapshots.filter { now - $0.value.lastUsedAt > limits.idleExpiry }.map(\.key)
        for number in expired { remove(number) }
    }

    /// Keeps a snapshot; returns its number. Evicts the least recently used
    /// ones to stay within the limits.
    mutating func insert(_ snapshot: QuerySnapshot) -> UInt64 {
        while !snapshots.isEmpty,
              snapshots.count >= max(1, limits.maxSnapshots) || totalEntries + snapshot.entries.count > limits.maxEntries {
            guard let oldest = snapshots.min(by: { $0.value.lastUse < $1.value.lastUse })?.key else { break }
            remove(oldest)
        }
        let number = nextNumber
        nextNumber += 1
        var snapshot = snapshot
        useCounter += 1
        snapshot.lastUse = useCounter
        snapshots[number] = snapshot
        totalEntries += snapshot.entries.count
        return number
    }

    /// The snapshot a marker names, marked as used now.
    mutating func use(_ number: UInt64, now: Milliseconds) -> QuerySnapshot? {
        guard var snapshot = snapshots[number] else { return nil }
        useCounter += 1
        snapshot.lastUse = useCounter
        snapshot.lastUsedAt = now
        snapshots[number] = snapshot
        return snapshot
    }

    mutating func remove(_ number: UInt64) {
        if let gone = snapshots.removeValue(forKey: number) { totalEntries -= gone.entries.count }
    }
}
