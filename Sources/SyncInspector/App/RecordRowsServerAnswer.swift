import SyncCore
import SyncClient
import SyncWorlds

/// The server's answer to a ``RecordRowsRead``.
public enum RecordRowsServerAnswer: Sendable, Hashable {
    case everything(ZoneRecordsAtPosition)
    case changes(server: ZoneRecordChanges, device: ZoneRecordChanges?)
    /// A position cannot be used (expired after a compaction, another history
    /// after a reset, the zone gone): the rows are read again from scratch.
    case refused(CloudError)
}
