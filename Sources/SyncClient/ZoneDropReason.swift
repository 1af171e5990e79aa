import SyncCore

/// Why a device dropped a zone's local data.
public enum ZoneDropReason: String, Sendable, Hashable {
    /// `changes/database` reported it deleted (or no longer shared).
    case deleted
    /// A full database refetch (after its token expired) no longer listed it.
    case missingFromRefetch
    /// A fetch or a save answered `zoneNotFound` (a `userDeletedZone` answer is a ``SyncEvent/zonePurged(scope:zoneID:recordsRemoved:pendingChangesDropped:)``).
    case zoneNotFound
    /// This device deleted it (the deletion reached the server).
    case deletedLocally
}
