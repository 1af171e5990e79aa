import SyncCore

/// Tunable behaviour of the simulated push service.
public struct PushConfiguration: Sendable, Hashable {
    /// How long a notification waits on the server for newer ones of the same
    /// subscription and collapse key to merge into it before it is sent.
    public var coalescingWindow: Milliseconds
    /// How long a sent notification takes to reach the device.
    public var deliveryLatency: Milliseconds
    /// The largest payload, in bytes; bigger notifications are pruned.
    public var payloadLimit: Int
    /// Most items in one `subscriptions/modify` request.
    public var maxOperationsPerRequest: Int
    /// How many events the push layer keeps for ``PushEngine/drainEvents()``;
    /// older ones are dropped (and counted).
    public var eventLogLimit: Int

    public init(
        coalescingWindow: Milliseconds = 200, deliveryLatency: Milliseconds = 50, payloadLimit: Int = CloudNotification.payloadLimit,
        maxOperationsPerRequest: Int = 400, eventLogLimit: Int = 10_000
    ) {
        self.coalescingWindow = max(0, coalescingWindow)
        self.deliveryLatency = max(0, deliveryLatency)
        self.payloadLimit = payloadLimit
        self.maxOperationsPerRequest = maxOperationsPerRequest
        self.eventLogLimit = max(0, eventLogLimit)
    }
}

/// Counters of the push layer's work.
public struct PushStatistics: Sendable, Hashable {
    public var commitsObserved = 0
    /// Zone-level database changes observed (zones created, deleted, shared in or revoked).
    public var databaseChangesObserved = 0
    /// Subscriptions looked at while routing commits: only those whose
    /// database, zone and record type fit the commit.
    public var candidatesExamined = 0
    public var notificationsCreated = 0
    public var coalesced = 0
    public var heldWhileOffline = 0
    public var pruned = 0
    public var deliveries = 0
    public var droppedEvents = 0

    public init() {}
}
