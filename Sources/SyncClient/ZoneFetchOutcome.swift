import Foundation
import SyncCore

/// How one zone's fetch ended successfully.
public struct ZoneFetchOutcome: Sendable, Hashable {
    public var serverChangeToken: ServerChangeToken
    public var clientChangeTokenData: Data?
    public var moreComing: Bool
}
