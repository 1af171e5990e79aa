import SyncCore
import SyncClient

/// The writer, as the status line shows it.
public struct WriterStatus: Hashable, Sendable {
    public var isRunning: Bool
    public var interval: Milliseconds
    public var actions: Int
}
