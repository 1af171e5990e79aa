import SyncCore
import SyncClient

/// What a fetch from an old token would return now.
public struct Rewind: Hashable, Sendable {
    public enum Change: Hashable, Sendable {
        case changed(String, type: String, isNew: Bool)
        case deleted(String, type: String)
        case zoneChanged(RecordZoneID)
        case zoneRemoved(RecordZoneID, ZoneDeletionReason)
    }

    public var receipt: TokenReceipt
    /// The server's words for what the token stands for.
    public var meaning: String
    /// The first batch a fetch from the token would return now…
    public var changes: [Change]
    public var moreComing: Bool
    /// …or why the server would refuse it.
    public var error: CloudError?
}
