/// The kinds of notification, spelled as on the wire (`notificationType`).
public enum NotificationType: String, Sendable, Hashable, Codable, CaseIterable {
    case database
    case recordZone
    case query
}
