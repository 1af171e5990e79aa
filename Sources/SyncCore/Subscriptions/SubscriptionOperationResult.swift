/// The outcome of one successful `subscriptions/modify` item.
public enum SubscriptionOperationResult: Sendable, Hashable {
    /// The subscription as the server stored it (zone owners filled in).
    case saved(Subscription)
    case deleted(subscriptionID: String)
}
