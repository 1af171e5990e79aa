import Foundation
import SyncCore

/// A database's change log: each zone once, at its latest change.
struct DatabaseLog {
    struct Entry {
        var sequence: Int64
        var removal: ZoneDeletionReason?
    }

    let incarnation: UInt64
    var log = SequenceLog<RecordZoneID>()
    var entries: [RecordZoneID: Entry] = [:]
    var tombstoneQueue = TombstoneQueue<RecordZoneID>()
    var compactedThrough: Int64 = 0

    init(incarnation: UInt64) {
        self.incarnation = incarnation
    }

    /// The zone was created, shared in, or had records changed.
    mutating func zoneChanged(_ zoneID: RecordZoneID) {
        if let old = entries[zoneID] { log.remove(old.sequence) }
        entries[zoneID] = Entry(sequence: log.append(zoneID), removal: nil)
    }

    mutating func zoneRemoved(_ zoneID: RecordZoneID, reason: ZoneDeletionReason) {
        if let old = entries[zoneID] { log.remove(old.sequence) }
        let sequence = log.append(zoneID)
        entries[zoneID] = Entry(sequence: sequence, removal: reason)
        tombstoneQueue.append(sequence, zoneID)
    }

    mutating func compact(through horizon: Int64) {
        let horizon = min(horizon, log.lastSequence)
        guard horizon > compactedThrough else { return }
        compactedThrough = horizon
        for (sequence, zoneID) in tombstoneQueue.popThrough(horizon) {
            if let entry = entries[zoneID], entry.sequence == sequence, entry.removal != nil {
                entries[zoneID] = nil
                log.remove(sequence)
            }
        }
    }
}
