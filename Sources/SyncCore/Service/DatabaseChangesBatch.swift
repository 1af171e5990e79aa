import Foundation

/// One batch of `changes/database`.
public struct DatabaseChangesBatch: Sendable, Hashable {
    public var changes: [DatabaseChange]
    public var serverChangeToken: ServerChangeToken
    public var moreComing: Bool

    public init(changes: [DatabaseChange], serverChangeToken: ServerChangeToken, moreComing: Bool) {
        self.changes = changes
        self.serverChangeToken = serverChangeToken
        self.moreComing = moreComing
    }
}
