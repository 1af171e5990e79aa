import SyncCore

/// Where inside ``LocalStore/apply(_:)`` a fault can be injected.
public enum StoreFaultPoint: String, Sendable, Hashable, CaseIterable {
    /// Records saved and deleted, nothing else yet.
    case afterRecords
    /// Everything but the tokens written.
    case beforeTokens
    /// Everything written, not yet committed.
    case beforeCommit
}
