import SyncCore
import SyncClient

/// An action that asks "are you sure?" first.
public enum ConfirmAction: Hashable, Sendable {
    case deleteRecord(RecordID)
    case deleteZone(RecordZoneID)
    case purgeZone(RecordZoneID)
    case encryptedDataReset
    case compact
}
