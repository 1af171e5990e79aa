import SyncCore

/// `zones/share` (our extension): `{"zoneID", "operationType": "share"|"revoke", "participants"}`.
public struct WireZoneShareRequest: Codable, Sendable, Hashable {
    public var zoneID: WireZoneID
    public var operationType: String
    public var participants: [String]

    public init(zoneID: WireZoneID, operationType: String, participants: [String]) {
        self.zoneID = zoneID
        self.operationType = operationType
        self.participants = participants
    }
}
