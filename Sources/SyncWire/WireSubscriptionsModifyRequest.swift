import SyncCore

/// `subscriptions/modify`.
public struct WireSubscriptionsModifyRequest: Codable, Sendable, Hashable {
    public struct Operation: Codable, Sendable, Hashable {
        public var operationType: String
        public var subscription: WireSubscription

        public init(operationType: String, subscription: WireSubscription) {
            self.operationType = operationType
            self.subscription = subscription
        }
    }

    public var operations: [Operation]

    public init(operations: [Operation]) { self.operations = operations }
}
