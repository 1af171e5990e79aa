import Foundation
import SyncCore

/// One record zone: its records, its change log, its tombstones.
final class ZoneState {
    let zoneID: RecordZoneID
    let incarnation: UInt64
    /// Live records by name. Change it only through ``store(_:name:)`` and
    /// ``removeRecord(named:)``, which keep ``recordNamesByType`` in step.
    private(set) var records: [String: StoredRecord] = [:]
    /// The names of the live records of each type, in no order: what
    /// `records/query` reads, so that a query's cost grows with the records
    /// of its type, not with the zone. Each record knows where its name is
    /// (``StoredRecord/typeSlot``): a new record's name is appended, a
    /// removed one's place takes the last name, and no name is hashed into
    /// a second table on the way.
    private(set) var recordNamesByType: [UInt32: [String]] = [:]
    var tombstones: [String: Tombstone] = [:]
    var tombstoneQueue = TombstoneQueue<String>()
    var log = SequenceLog<String>()
    /// Deletions at or below this sequence are gone: older tokens expired.
    var compactedThrough: Int64 = 0
    var clientChangeTokenData: Data?
    /// Users this zone is shared with (zone-wide share).
    var participants: Set<String> = []
    /// The zone-wide `CKShare` (`cloudkit.zoneshare`), if the owner saved one.
    var share: ZoneShare?
    /// Each record's parent (`CKRecord.parent`), by record name: only records
    /// that have one (a deleted record keeps its entry until its tombstone
    /// goes, so its deletion reaches the share it was in).
    var parents: [String: String] = [:]
    /// The record shares, by share record name.
    var recordShares: [String: ZoneShare] = [:]
    /// The share record of each shared root record, by the root's name.
    var shareOfRoot: [String: String] = [:]

    /// ``parents`` and ``shareOfRoot`` as they are now, for a run of records
    /// (``Links/apply(to:)``); `nil` when both are empty.
    var links: Links? { parents.isEmpty && shareOfRoot.isEmpty ? nil : Links(parents: parents, shareOfRoot: shareOfRoot) }

    struct Links {
        let parents: [String: String]
        let shareOfRoot: [String: String]

        /// Sets `record`'s parent and the share it is the root of, if it has them.
        func apply(to record: inout Record) {
            let name = record.recordID.recordName
            if !parents.isEmpty, let parent = parents[name] { record.parent = RecordReference(recordName: parent) }
            if !shareOfRoot.isEmpty, let share = shareOfRoot[name] { record.share = RecordReference(recordName: share) }
        }
    }
    /// Participants who see only some records (the hierarchies of the record
    /// shares they accepted, by share record name); everyone else in
    /// ``participants`` sees the whole zone.
    var limitedParticipants: [String: Set<String>] = [:]

    /// Whether the zone has any share (zone-wide or of a record).
    var hasShares: Bool { share != nil || !recordShares.isEmpty }

    /// The record share whose hierarchy holds `name` (a share record
    /// belongs to its own share): found by walking `parent` up to a root.
    func recordShareName(containing name: String) -> String? {
        guard !recordShares.isEmpty else { return nil }
        if recordShares[name] != nil { return name }
        var current = name
        for _ in 0...parents.count {
            if let share = shareOfRoot[current] { return share }
            guard let parent = parents[current] else { return nil }
            current = parent
        }
        return nil
    }

    /// The participants a change of the records `names` reaches: everyone
    /// who sees the whole zone, and each record-share participant who sees
    /// one of them.
    func participants(seeing names: [String]) -> Set<String> {
        guard !limitedParticipants.isEmpty else { return participants }
        // Each name's share is found once, not once per participant.
        let sharesReached = Set(names.compactMap(recordShareName(containing:)))
        return participants.filter { user in
            limitedParticipants[user].map { !$0.isDisjoint(with: sharesReached) } ?? true
        }
    }

    /// `user`, when reading the zone in `scope` shows them only the records
    /// of the record shares they take part in; `nil` when they see it all
    /// (its owner, a zone-wide participant): found once, before a loop over records.
    func limitedViewer(_ user: String, in scope: DatabaseScope) -> String? {
        scope == .shared && limitedParticipants[user] != nil ? user : nil
    }

    /// Whether `user` (a participant) may see record `name`.
    func isVisible(_ name: String, to user: String) -> Bool {
        guard let shares = limitedParticipants[user] else { return true }
        return recordShareName(containing: name).map(shares.contains) ?? false
    }

    init(zoneID: RecordZoneID, incarnation: UInt64) {
        self.zoneID = zoneID
        self.incarnation = incarnation
    }

    /// Room for `count` more live records (of `type`, when given), so that
    /// filling the zone with a count known up front (a checkpoint's, a
    /// journal's) never regrows and rehashes its tables on the way.
    func reserveCapacity(adding count: Int, ofType type: UInt32? = nil) {
        guard count > 0 else { return }
        records.reserveCapacity(records.count + count)
        if let type {
            let names = recordNamesByType[type]?.count ?? 0
            recordNamesByType[type, default: []].reserveCapacity(names + count)
        }
    }

    /// Saves a live record (new or changed), looking its name up once.
    func store(_ record: consuming StoredRecord, name: String) {
        let type = record.type
        let appendedSlot = UInt32(recordNamesByType[type]?.count ?? 0)
        let replaced = Self.put(record, into: &records[name], appendedSlot: appendedSlot)
        guard replaced?.type != type else { return }
        if let replaced { removeName(at: replaced.slot, ofType: replaced.type) }
        recordNamesByType[type, default: []].append(name)
    }

    /// Puts `record` in its dictionary entry, keeping its slot when the entry
    /// held a record of its type; returns the type and slot of what it held.
    private static func put(
        _ record: consuming StoredRecord, into entry: inout StoredRecord?, appendedSlot: UInt32
    ) -> (type: UInt32, slot: UInt32)? {
        let replaced = entry.map { (type: $0.type, slot: $0.typeSlot) }
        record.typeSlot = replaced?.type == record.type ? replaced!.slot : appendedSlot
        entry = record
        return replaced
    }

    /// Removes a live record; returns it.
    @discardableResult
    func removeRecord(named name: String) -> StoredRecord? {
        guard let old = records.removeValue(forKey: name) else { return nil }
        removeName(at: old.typeSlot, ofType: old.type)
        return old
    }

    /// Takes the name at `slot` out of the names of `type`: the last name
    /// moves into its place, and its record is told.
    private func removeName(at slot: UInt32, ofType type: UInt32) {
        guard let last = recordNamesByType[type]?.popLast() else { return }
        if recordNamesByType[type]!.isEmpty {
            recordNamesByType[type] = nil
        } else if Int(slot) < recordNamesByType[type]!.count {
            recordNamesByType[type]![Int(slot)] = last
            records[last]?.typeSlot = slot
        }
    }

    /// Drops tombstones at or below `horizon`; tokens that need them expire.
    func compact(through horizon: Int64) {
        let horizon = min(horizon, log.lastSequence)
        guard horizon > compactedThrough else { return }
        compactedThrough = horizon
        for (sequence, name) in tombstoneQueue.popThrough(horizon) where tombstones[name]?.sequence == sequence {
            tombstones[name] = nil
            log.remove(sequence)
            if records[name] == nil, !parents.isEmpty { parents[name] = nil }
        }
    }
}
