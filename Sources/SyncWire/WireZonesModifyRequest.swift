import SyncCore

/// `zones/modify`: `{"operations": [{"operationType": "create"|"delete", "zone": {"zoneID"}}]}`.
public struct WireZonesModifyRequest: Codable, Sendable, Hashable {
    public struct Operation: Codable, Sendable, Hashable {
        public var operationType: String
        public var zone: WireZone

        public init(operationType: String, zone: WireZone) {
            self.operationType = operationType
            self.zone = zone
        }
    }

    public var operations: [Operation]

    public init(operations: [Operation]) { self.operations = operations }
}
