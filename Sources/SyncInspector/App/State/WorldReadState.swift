import SyncCore
import SyncClient

/// What the inspector keeps of what it read of the world, beyond what the
/// panes show: the server's last answer, the records pane's model, the
/// rewind built for the last answer, and whether the world changed since.
public struct WorldReadState: Equatable, Sendable {
    /// What the server said at the last read (the same questions in process and over HTTP).
    public var reading = ServerReading()
    /// The records pane's rows are kept up to date with the changes since it last looked.
    public var recordRows = RecordRowsModel()
    /// The order the model keeps the rows in (a column sort changed to it).
    public var recordRowsSort: RecordSort = .name
    /// Bumped by every sync event of a device: its cache may have changed.
    public var generations: [String: Int] = [:]
    /// What a fetch from the token of ``ServerReading/rewind`` would return, built in the read.
    public var rewind: Rewind?
    /// An event happened since the last server read began: the panes are behind.
    public var eventsSinceRead = false

    public init() {}
}
