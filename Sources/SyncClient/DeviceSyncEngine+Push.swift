import SyncCore

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
