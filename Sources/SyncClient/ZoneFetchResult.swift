import Foundation
import SyncCore

/// How one zone's fetch ended.
public struct ZoneFetchResult: Sendable {
    public var zoneID: RecordZoneID
    public var result: Result<ZoneFetchOutcome, any Error>
}
