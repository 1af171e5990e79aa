import Foundation
import SyncCore

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
