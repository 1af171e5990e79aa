import SyncCore
import SyncClient

/// Which side of a zone the records pane shows.
public enum RecordsMode: String, CaseIterable, Hashable, Sendable {
    /// Server and device cache side by side, one row per record name.
    case both
    /// What the server holds.
    case server
    /// What the focused device has cached.
    case device
}
