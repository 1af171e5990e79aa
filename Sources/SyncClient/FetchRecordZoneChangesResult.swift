import Foundation
import SyncCore

/// Everything a ``FetchRecordZoneChangesOperation`` reported.
public struct FetchRecordZoneChangesResult: Sendable {
    /// Changed records, in the order received (zone by zone, oldest change first).
    public var changedRecords: [Record] = []
    public var deletedRecords: [DeletedRecord] = []
    /// Tokens from `recordZoneChangeTokensUpdatedBlock`, in order.
    public var intermediateTokens: [ZoneTokenUpdate] = []
    /// One per requested zone, in order.
    public var zoneResults: [ZoneFetchResult] = []
    public var batchCount = 0
    public var wasInterrupted = false

    public init() {}

    /// How the fetch of `zoneID` ended, if it was requested.
    public func result(for zoneID: RecordZoneID) -> Result<ZoneFetchOutcome, any Error>? {
        zoneResults.first { $0.zoneID == zoneID }?.result
    }

    /// The token to cache for `zoneID`: its final token, or after an
    /// interruption or failure the last token it delivered.
    public func latestToken(for zoneID: RecordZoneID) -> ServerChangeToken? {
        if case .success(let outcome)? = result(for: zoneID) { return outcome.serverChangeToken }
        return intermediateTokens.last { $0.zoneID == zoneID }?.token
    }
}
