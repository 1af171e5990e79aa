/// The three kinds of subscription, named as CloudKit Web Services puts them on the wire.
public enum SubscriptionType: String, Sendable, Hashable, Codable, CaseIterable {
    case query
    case recordZone = "zone"
    case database
}
