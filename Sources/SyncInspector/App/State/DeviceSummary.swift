import SyncCore
import SyncClient

/// A device as the header and the status line show it.
public struct DeviceSummary: Hashable, Sendable {
    public var name: String
    public var user: String
    public var deviceID: String
    public var isOnline: Bool
    public var autoFetchOnPush: Bool
    public var pendingChanges: Int
    public var fetchRuns: Int
    public var lastError: CloudError?

    /// "iPhone (alice)".
    public var label: String { "\(name) (\(user))" }
}
