import SyncCore

/// One run of a scheduled fetch (every configured scope, from the cached tokens).
public struct FetchRun: Sendable, Hashable {
    /// 1, 2, 3… per engine.
    public var id: Int
    /// Why it was first scheduled.
    public var reason: FetchReason
    /// The notifications that led to this run, in arrival order: those that
    /// scheduled it and those that arrived while it waited (empty for a
    /// manual or came-online run no notification joined).
    public var triggeredBy: [String]
    public var startedAt: Milliseconds
    public var finishedAt: Milliseconds?
    /// `nil` while it runs.
    public var succeeded: Bool?
    /// Records saved and deleted locally during the run (records of removed zones included).
    public var changesApplied: Int
    /// Why it failed, when it did.
    public var errorMessage: String?

    public init(
        id: Int, reason: FetchReason, triggeredBy: [String], startedAt: Milliseconds, finishedAt: Milliseconds? = nil,
        succeeded: Bool? = nil, changesApplied: Int = 0, errorMessage: String? = nil
    ) {
        self.id = id
        self.reason = reason
        self.triggeredBy = triggeredBy
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.succeeded = succeeded
        self.changesApplied = changesApplied
        self.errorMessage = errorMessage
    }
}
