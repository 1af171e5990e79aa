import Foundation
import SyncCore

/// One zone of a `changes/database` answer: `{"zoneID"}` when it changed,
/// `{"zoneID", "deleted": true, "reason": "deleted"|"purged"|"encryptedDataReset"}`
/// when it went away.
public struct WireDatabaseZoneChange: Codable, Sendable, Hashable {
    public var zoneID: WireZoneID
    public var deleted: Bool?
    public var reason: String?

    public init(zoneID: WireZoneID, deleted: Bool? = nil, reason: String? = nil) {
        self.zoneID = zoneID
        self.deleted = deleted
        self.reason = reason
    }

    public init(_ change: DatabaseChange) {
        switch change {
        case .zoneChanged(let id): self.init(zoneID: WireZoneID(id))
        case .zoneRemoved(let id, let reason): self.init(zoneID: WireZoneID(id), deleted: true, reason: reason.rawValue)
        }
    }
}
