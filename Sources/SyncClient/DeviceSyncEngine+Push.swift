import SyncCore

/// Why a fetch run was scheduled.
public enum FetchReason: String, Sendable, Hashable {
    /// A push notification said something changed.
    case push
    /// The device is back online: notifications may have been dropped or
    /// coalesced away while it was not.
    case cameOnline
    /// The app asked for it.
    case manual
}

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

/// A fetch waiting to run.
struct ScheduledFetch {
    var reason: FetchReason
    var notificationIDs: [String]
}

extension DeviceSyncEngine {
    /// Records the notification (never reads data from it) and schedules one
    /// fetch; if a fetch is running, marks exactly one follow-up fetch
    /// (however many notifications arrive meanwhile).
    ///
    /// A notification only says "something changed": its record fields may be
    /// pruned or stale, and others may have been coalesced into it or dropped,
    /// so the fetch from the cached tokens is what brings the data.
    public func notificationReceived(_ notification: CloudNotification) {
        emit(.notificationReceived(
            notificationID: notification.notificationID, subscriptionID: notification.subscriptionID,
            coalescedCount: notification.coalescedCount))
        guard autoFetchOnPush else { return }
        schedule(.push, notificationID: notification.notificationID)
    }

    /// The device is back online: schedule a fetch even without a
    /// notification (it may have been dropped or coalesced away).
    public func cameOnline() {
        schedule(.cameOnline, notificationID: nil)
    }

    /// Schedule a manual fetch.
    public func scheduleFetch() {
        schedule(.manual, notificationID: nil)
    }

    /// Whether a fetch waits to run (while a fetch runs: whether a follow-up is marked).
    public var isFetchScheduled: Bool { scheduledFetch != nil }

    /// One waiting fetch at most: a new reason joins the one already scheduled.
    private func schedule(_ reason: FetchReason, notificationID: String?) {
        if var waiting = scheduledFetch {
            if let notificationID { waiting.notificationIDs.append(notificationID) }
            scheduledFetch = waiting
            return
        }
        let fetch = ScheduledFetch(reason: reason, notificationIDs: notificationID.map { [$0] } ?? [])
        scheduledFetch = fetch
        emit(.fetchScheduled(reason: reason, notificationIDs: fetch.notificationIDs))
    }

    /// Runs the scheduled fetch (sending pending changes is not part of it),
    /// then at most one follow-up if notifications arrived while it ran,
    /// repeating until nothing is scheduled. Errors become events
    /// (``SyncEvent/fetchRunFinished(_:)`` with `succeeded == false`), not throws.
    ///
    /// Called while a run is in progress (from the event handler), it returns
    /// at once: the running call takes care of what is scheduled.
    public func runScheduledFetches(resultsLimit: Int? = nil) async {
        guard !isFetching else { return }
        while let fetch = scheduledFetch {
            scheduledFetch = nil
            var run = FetchRun(
                id: (fetchRuns.last?.id ?? 0) + 1, reason: fetch.reason, triggeredBy: fetch.notificationIDs, startedAt: clock.now())
            fetchRuns.append(run)
            isFetching = true
            changesAppliedInRun = 0
            emit(.fetchRunStarted(run))
            do {
                try await fetchChanges(scopes: configuration.scopes, resultsLimit: resultsLimit, budget: BatchBudget(limit: nil))
                run.succeeded = true
            } catch {
                run.succeeded = false
                run.errorMessage = (error as? CloudError)?.reason ?? String(describing: error)
            }
            isFetching = false
            run.changesApplied = changesAppliedInRun
            run.finishedAt = clock.now()
            fetchRuns[fetchRuns.count - 1] = run
            emit(.fetchRunFinished(run))
        }
    }
}
