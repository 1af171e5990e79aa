import SyncCore
import SyncClient

/// How a record's server version and the device's copy differ.
public enum RecordMarker: Hashable, Sendable {
    /// Both have the same version.
    case same
    /// On the server, not (yet) on the device: a fetch brings it.
    case new
    /// The server's version is newer than the device's copy.
    case changed
    /// The device still has it; the server deleted it.
    case deleted
    /// Only on the device: created there and not sent yet.
    case localOnly

    /// One character for the table.
    public var symbol: String {
        switch self {
        case .same: " "
        case .new: "+"
        case .changed: "~"
        case .deleted: "−"
        case .localOnly: "↑"
        }
    }

    public var explanation: String {
        switch self {
        case .same: "the device has the server's version"
        case .new: "new on the server since the device's token: the next fetch brings it"
        case .changed: "changed on the server since the device's token: the next fetch brings the new version"
        case .deleted: "deleted on the server since the device's token: the next fetch removes it"
        case .localOnly: "created on the device, not sent yet"
        }
    }
}
