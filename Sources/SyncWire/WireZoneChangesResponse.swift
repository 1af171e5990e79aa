import Foundation
import SyncCore

/// A `changes/zone` answer: `{"zones": [zone changes | error]}`, in request order.
public struct WireZoneChangesResponse: Codable, Sendable, Hashable {
    public var zones: [WireResult<WireZoneChanges>]

    public init(zones: [WireResult<WireZoneChanges>]) {
        self.zones = zones
    }

    public init(_ results: [Result<ZoneChangesBatch, CloudError>]) {
        zones = results.map { result in
            switch result {
            case .success(let batch): .success(WireZoneChanges(batch))
            case .failure(let error): .failure(WireError(error))
            }
        }
    }

    /// Each zone's batch or error. A zone whose records cannot be read
    /// becomes that zone's `invalidArguments` error; the others are kept.
    public var results: [Result<ZoneChangesBatch, CloudError>] {
        zones.map { item in
            switch item {
            case .success(let wire): Result { () throws(CloudError) in try ZoneChangesBatch(wire) }
            case .failure(let error): .failure(CloudError(error))
            }
        }
    }
}
