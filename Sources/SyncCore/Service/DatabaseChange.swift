import Foundation

/// One entry of a database-changes answer.
public enum DatabaseChange: Sendable, Hashable {
    /// Created, shared in, or its records changed.
    case zoneChanged(RecordZoneID)
    case zoneRemoved(RecordZoneID, reason: ZoneDeletionReason)

    public var zoneID: RecordZoneID {
        switch self {
        case .zoneChanged(let id), .zoneRemoved(let id, _): id
        }
    }
}
