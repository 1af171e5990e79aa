import SyncCore

/// `zones/lookup`: Apple's `{"zones": [{"zoneName", "ownerRecordName"?}]}`;
/// the older form of ours, `{"zones": [{"zoneID": {...}}]}`, is still read.
public struct WireZonesLookupRequest: Codable, Sendable, Hashable {
    /// One zone asked for: a zone ID, written as Apple writes it.
    public struct Item: Codable, Sendable, Hashable {
        public var zoneID: WireZoneID

        public init(zoneID: WireZoneID) { self.zoneID = zoneID }

        private enum Keys: String, CodingKey { case zoneID }

        public init(from decoder: any Decoder) throws {
            let keys = try decoder.container(keyedBy: Keys.self)
            if let nested = try keys.decodeIfPresent(WireZoneID.self, forKey: .zoneID) {
                zoneID = nested
            } else {
                zoneID = try WireZoneID(from: decoder)
            }
        }

        public func encode(to encoder: any Encoder) throws { try zoneID.encode(to: encoder) }
    }

    public var zones: [Item]

    public init(zones: [Item]) { self.zones = zones }
}
