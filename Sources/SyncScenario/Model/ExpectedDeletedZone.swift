import SyncCore

/// A zone a database-changes answer reports as removed.
public struct ExpectedDeletedZone: Sendable, Equatable {
    public var zone: ZoneRef
    /// `nil`: any reason.
    public var reason: ZoneDeletionReason?

    public init(_ zone: ZoneRef, reason: ZoneDeletionReason? = nil) {
        self.zone = zone
        self.reason = reason
    }
}
