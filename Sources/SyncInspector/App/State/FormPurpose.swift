import SyncCore
import SyncClient

/// What a form is for.
public enum FormPurpose: Hashable, Sendable {
    case newRecord(RecordZoneID)
    /// Editing this version of the record (the device's copy, or the server's
    /// when the device has not fetched it).
    case editRecord(Record)
    case newZone
    case resultsLimit
}
