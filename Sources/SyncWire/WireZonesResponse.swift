import SyncCore

/// `{"zones": [zone | error]}`: the answer of `zones/modify`, `zones/list` and `zones/lookup`.
public struct WireZonesResponse: Codable, Sendable, Hashable {
    public var zones: [WireResult<WireZone>]

    public init(zones: [WireResult<WireZone>]) { self.zones = zones }
}
