import Foundation
import SyncCore

/// Deleting a subscription.
public struct UnsubscribeAction: Sendable, Equatable {
    public var owner: Principal
    public var subscriptionID: String
    public var database: DatabaseScope

    public init(owner: Principal, subscriptionID: String, database: DatabaseScope = .private) {
        self.owner = owner
        self.subscriptionID = subscriptionID
        self.database = database
    }
}
