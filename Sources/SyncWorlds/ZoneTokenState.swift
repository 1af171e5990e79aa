import Foundation
import SyncCore

/// How a device's cached zone token stands against the server now.
public enum ZoneTokenState: Sendable, Hashable {
    /// A fetch from it would bring this many changes (0: in sync).
    case behind(Int)
    /// The server would refuse it (expired, another history…), with the error a fetch would get.
    case refused(CloudError)
}
