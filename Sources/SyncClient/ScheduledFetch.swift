import SyncCore

/// A fetch waiting to run.
struct ScheduledFetch {
    var reason: FetchReason
    var notificationIDs: [String]
}
