import SyncCore

/// What waiting notifications merge on, besides their subscription.
enum CollapseKey: Hashable {
    case zone(RecordZoneID)
    case record(RecordID)
    /// The subscription's `collapseIDKey`.
    case id(String)
}
