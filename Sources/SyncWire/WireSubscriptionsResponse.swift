import SyncCore

/// `{"subscriptions": [subscription | error]}`.
public struct WireSubscriptionsResponse: Codable, Sendable, Hashable {
    public var subscriptions: [WireResult<WireSubscription>]

    public init(subscriptions: [WireResult<WireSubscription>]) { self.subscriptions = subscriptions }
}
