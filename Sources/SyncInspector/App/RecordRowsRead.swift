import SyncCore
import SyncClient
import SyncWorlds

/// What the records model must read from the server to bring its rows up to date.
public enum RecordRowsRead: Hashable, Sendable {
    /// The zone's records and the position they stand at (`ZoneRecordsAtPosition`, in SyncWorlds).
    case everything
    /// The changes since the model's position; and, when the device's token
    /// moved (it fetched), the changes since the device's previous token:
    /// the names whose copy on the device may have changed.
    case changes(since: ServerChangeToken, deviceSince: ServerChangeToken?)
}
