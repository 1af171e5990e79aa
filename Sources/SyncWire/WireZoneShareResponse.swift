import SyncCore

/// The answer of `zones/share`: who the zone is shared with now.
public struct WireZoneShareResponse: Codable, Sendable, Hashable {
    public var zoneID: WireZoneID
    public var participants: [String]

    public init(zoneID: WireZoneID, participants: [String]) {
        self.zoneID = zoneID
        self.participants = participants
    }
}
