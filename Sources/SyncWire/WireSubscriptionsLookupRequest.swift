import SyncCore

/// `subscriptions/lookup`: `{"subscriptions": [{"subscriptionID"}]}`.
public struct WireSubscriptionsLookupRequest: Codable, Sendable, Hashable {
    public struct Item: Codable, Sendable, Hashable {
        public var subscriptionID: String

        public init(subscriptionID: String) { self.subscriptionID = subscriptionID }
    }

    public var subscriptions: [Item]

    public init(subscriptions: [Item]) { self.subscriptions = subscriptions }
}
