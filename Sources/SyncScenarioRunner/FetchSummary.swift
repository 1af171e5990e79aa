import SyncCore
import SyncClient
import SyncScenario

/// The answer to one fetch (all its batches together), as checks see it.
public struct FetchSummary: Sendable, Hashable {
    public var device: String
    /// Changed records, in the order the server sent them.
    public var records: [Record] = []
    public var deletions: [DeletedRecord] = []
    /// Database changes: zones reported changed, in order.
    public var zones: [RecordZoneID] = []
    /// Database changes: zones reported removed, in order.
    public var deletedZones: [RemovedZone] = []
    /// `moreComing` of the last batch.
    public var moreComing = false
    public var batches = 0
    /// The device's cached tokens differ from those before the fetch.
    public var tokenChanged = false

    public init(device: String) {
        self.device = device
    }
}
