import SyncCore
import SyncClient
import SyncScenario

/// What one send (or the send part of a sync or burst) did, as checks see it.
public struct SendSummary: Sendable, Hashable {
    public var device: String
    /// Record names the server saved, in the order they were sent.
    public var saved: [String] = []
    public var deleted: [String] = []
    /// Records whose save met a newer server record (`serverRecordChanged`).
    public var conflicts: [String] = []

    public init(device: String) {
        self.device = device
    }
}
