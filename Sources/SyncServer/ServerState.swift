import Foundation
import SyncCore

/// Who changed a record and when, with names interned as small integers.
struct Stamp {
    var time: Milliseconds
    var user: UInt32
    /// 0 means "no device".
    var device: UInt32
}

/// A live record as the server stores it: compact, without its zone ID.
struct StoredRecord {
    var type: UInt32
    var fields: RecordFields
    var tag: UInt64
    var created: Stamp
    var modified: Stamp
    /// The sequence of its latest change in the zone's log.
    var sequence: Int64
}

/// A deleted record, kept until compaction so that fetches report the deletion.
struct Tombstone {
    var type: UInt32
    var sequence: Int64
}

/// Interns user, device and record-type names.
struct NameTable {
    private(set) var names: [String] = [""]
    private var indices: [String: UInt32] = ["": 0]

    mutating func intern(_ name: String) -> UInt32 {
        if let i = indices[name] { return i }
        let i = UInt32(names.count)
        names.append(name)
        indices[name] = i
        return i
    }

    subscript(index: UInt32) -> String { names[Int(index)] }

    /// The index of a name already interned; `nil` for a name never seen.
    func index(of name: String) -> UInt32? { indices[name] }
}

/// A queue of (sequence, key) in increasing sequence order, consumed from the
/// front by compaction.
struct TombstoneQueue<Key> {
    private var items: [(sequence: Int64, key: Key)] = []
    private var head = 0

    mutating func append(_ sequence: Int64, _ key: Key) { items.append((sequence, key)) }

    /// Removes and returns the entries with sequence `<= horizon`.
    mutating func popThrough(_ horizon: Int64) -> [(sequence: Int64, key: Key)] {
        var popped: [(sequence: Int64, key: Key)] = []
        while head < items.count, items[head].sequence <= horizon {
            popped.append(items[head])
            head += 1
        }
        if head > 1024, head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        return popped
    }
}

/// One record zone: its records, its change log, its tombstones.
final class ZoneState {
    let zoneID: RecordZoneID
    let incarnation: UInt64
    /// Live records by name. Change it only through ``store(_:name:)`` and
    /// ``removeRecord(named:)``, which keep ``recordNamesByType`` in step.
    private(set) var records: [String: StoredRecord] = [:]
    /// The names of the live records of each type: what `records/query`
    /// reads, so that a query's cost grows with the records of its type, not
    /// with the zone.
    private(set) var recordNamesByType: [UInt32: Set<String>] = [:]
    var tombstones: [String: Tombstone] = [:]
    var tombstoneQueue = TombstoneQueue<String>()
    var log = SequenceLog<String>()
    /// Deletions at or below this sequence are gone: older tokens expired.
    var compactedThrough: Int64 = 0
    var clientChangeTokenData: Data?
    /// Users this zone is shared with (zone-wide share).
    var participants: Set<String> = []

    init(zoneID: RecordZoneID, incarnation: UInt64) {
        self.zoneID = zoneID
        self.incarnation = incarnation
    }

    /// Saves a live record (new or changed); a record keeps its type.
    func store(_ record: StoredRecord, name: String) {
        if let old = records.updateValue(record, forKey: name) {
            if old.type != record.type {
                recordNamesByType[old.type]?.remove(name)
                recordNamesByType[record.type, default: []].insert(name)
            }
        } else {
            recordNamesByType[record.type, default: []].insert(name)
        }
    }

    /// Removes a live record; returns it.
    @discardableResult
    func removeRecord(named name: String) -> StoredRecord? {
        guard let old = records.removeValue(forKey: name) else { return nil }
        recordNamesByType[old.type]?.remove(name)
        if recordNamesByType[old.type]?.isEmpty == true { recordNamesByType[old.type] = nil }
        return old
    }

    /// Drops tombstones at or below `horizon`; tokens that need them expire.
    func compact(through horizon: Int64) {
        let horizon = min(horizon, log.lastSequence)
        guard horizon > compactedThrough else { return }
        compactedThrough = horizon
        for (sequence, name) in tombstoneQueue.popThrough(horizon) where tombstones[name]?.sequence == sequence {
            tombstones[name] = nil
            log.remove(sequence)
        }
    }
}

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

/// One user's databases in one container and environment.
final class UserDatabases {
    let user: String
    /// Private zones by name, the default zone included.
    var privateZones: [String: ZoneState] = [:]
    /// Why a private zone that no longer exists went away.
    var removedZoneReasons: [String: ZoneDeletionReason] = [:]
    var privateLog: DatabaseLog
    /// Zones other users share with this user.
    var sharedZones: Set<RecordZoneID> = []
    var sharedLog: DatabaseLog

    init(user: String, privateIncarnation: UInt64, sharedIncarnation: UInt64, defaultZoneIncarnation: UInt64) {
        self.user = user
        privateLog = DatabaseLog(incarnation: privateIncarnation)
        sharedLog = DatabaseLog(incarnation: sharedIncarnation)
        let defaultZone = RecordZoneID.defaultZone(ownerName: user)
        privateZones[defaultZone.zoneName] = ZoneState(zoneID: defaultZone, incarnation: defaultZoneIncarnation)
    }
}

/// One container in one environment.
final class ContainerState {
    let publicZone: ZoneState
    var users: [String: UserDatabases] = [:]

    init(publicZoneIncarnation: UInt64) {
        publicZone = ZoneState(
            zoneID: .defaultZone(ownerName: RecordZoneID.publicOwnerName), incarnation: publicZoneIncarnation
        )
    }

    init(publicZone: ZoneState) {
        self.publicZone = publicZone
    }
}
