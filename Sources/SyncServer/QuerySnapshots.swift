import Foundation
import SyncCore

/// How long and how much the server keeps of paged queries (see
/// ``ServerEngine/queryPaging``).
public struct QueryPagingLimits: Sendable, Hashable {
    /// A snapshot not used for this long expires (its markers then answer
    /// `BAD_REQUEST`, "has expired"). Read on the engine's clock.
    public var idleExpiry: Milliseconds
    /// At most this many snapshots at once; the least recently used goes first.
    public var maxSnapshots: Int
    /// At most this many remembered records over all snapshots (the least
    /// recently used snapshots go first); a single query larger than this is
    /// still kept, alone.
    public var maxEntries: Int

    public init(idleExpiry: Milliseconds = 10 * 60 * 1000, maxSnapshots: Int = 256, maxEntries: Int = 1_000_000) {
        self.idleExpiry = idleExpiry
        self.maxSnapshots = maxSnapshots
        self.maxEntries = maxEntries
    }
}

/// What a `continuationMarker` stands for: a position in a snapshot the
/// engine keeps, bound to the query it belongs to. Handed out as URL-safe
/// base64 of `2:snapshot:created:offset:digest:query` (the same marker for
/// the same position, byte for byte); it holds no record data.
struct QueryMarker: Hashable {
    /// The snapshot's number in this engine.
    var snapshot: UInt64
    /// When the snapshot was taken (engine clock): with ``digest``, tells a
    /// snapshot from one a restarted server numbered the same.
    var created: Milliseconds
    /// FNV-1a over the snapshot's record positions, in order (hex).
    var digest: String
    /// Fingerprint of the query (type, filters, sort; hex).
    var query: String
    /// The next entry of the snapshot to look at.
    var offset: Int

    static let version = "2"

    func encoded() -> String {
        let text = [Self.version, String(snapshot), String(created), String(offset), digest, query].joined(separator: ":")
        return Data(text.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: String) -> QueryMarker? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.utf8.count % 4 != 0 { base64.append("=") }
        guard let data = Data(base64Encoded: base64), let plain = String(data: data, encoding: .utf8) else { return nil }
        let parts = plain.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 6, parts[0] == version, let snapshot = UInt64(parts[1]), let created = Milliseconds(parts[2]),
              let offset = Int(parts[3]), offset >= 0, !parts[4].isEmpty, !parts[5].isEmpty
        else { return nil }
        return QueryMarker(snapshot: snapshot, created: created, digest: parts[4], query: parts[5], offset: offset)
    }
}

/// The records a paged query matched when its first page was served, in
/// that page's order, minus the first page: what later pages walk through.
struct QuerySnapshot {
    /// A zone the query searched, as it was then (a zone deleted and made
    /// again is another incarnation, whose records are not these).
    struct Zone: Hashable {
        var zoneID: RecordZoneID
        var incarnation: UInt64
    }

    /// One remembered record: its zone (an index into ``zones``) and name.
    struct Entry {
        var zone: UInt32
        var name: String
    }

    var created: Milliseconds
    var digest: String
    var fingerprint: String
    /// Whose query it is, in which database, over which zone (`nil`: zone-wide).
    var user: String
    var database: DatabaseID
    var zoneRequest: RecordZoneID?
    /// The engine's history when taken: replaced state (import, reset) ends it.
    var history: UInt64
    var zones: [Zone]
    var entries: [Entry]
    /// For least-recently-used eviction and idle expiry.
    var lastUse: UInt64
    var lastUsedAt: Milliseconds

    static func digest(_ zones: [Zone], _ entries: [Entry]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ text: String) {
            for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
            hash = (hash ^ 0xFF) &* 0x0000_0100_0000_01b3
        }
        for zone in zones {
            mix(zone.zoneID.zoneName)
            mix(zone.zoneID.ownerName)
            mix(String(zone.incarnation, radix: 16))
        }
        for entry in entries {
            mix(String(entry.zone))
            mix(entry.name)
        }
        return String(hash, radix: 16)
    }
}

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
