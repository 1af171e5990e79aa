import Foundation
import SyncCore

/// A user of the simulated server.
public struct UserAccount: Sendable, Hashable {
    public var name: String
    /// The secret a client sends as `ckWebAuthToken` (or `Authorization: Bearer`).
    public var webAuthToken: String
}
