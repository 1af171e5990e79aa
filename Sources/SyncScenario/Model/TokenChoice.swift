import Foundation
import SyncCore

/// Which change token a fetch starts from.
public enum TokenChoice: Sendable, Hashable {
    /// The token the device cached after its last fetch of the same kind
    /// (none the first time).
    case cached
    /// No token: everything (written `nil`, `null` or `~`).
    case noToken
    /// A token remembered earlier with `capture:`. When the name holds
    /// tokens of several zones, a zone fetch uses the one of its own zone,
    /// or the only one there is.
    case captured(String)
}
