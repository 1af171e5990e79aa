import SyncCore

/// How a token changes in a ``StoreBatch``.
public enum TokenUpdate: Sendable, Hashable {
    case set(ServerChangeToken)
    case remove

    var token: ServerChangeToken? {
        if case .set(let token) = self { return token }
        return nil
    }
}
