import SyncCore

/// Names one stored subscription.
struct SubscriptionKey: Hashable, Comparable {
    var owner: SubscriptionOwner
    var subscriptionID: String

    static func < (a: Self, b: Self) -> Bool {
        a.owner != b.owner ? a.owner < b.owner : a.subscriptionID < b.subscriptionID
    }
}
