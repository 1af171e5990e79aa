import SyncCore
import SyncClient

/// What the rows of a record list were built from: when none of it changed,
/// the sorted rows are reused.
public struct RecordListKey: Hashable, Sendable {
    public var zone: ZoneKey
    public var device: String
    public var serverSequence: Int64?
    public var serverRecordCount: Int?
    public var deviceToken: ServerChangeToken?
    /// Bumped by every sync event of the device.
    public var deviceGeneration: Int
}
