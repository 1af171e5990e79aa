import Foundation
import SyncCore

/// One zone of a `changes/zone` answer: `{"zoneID", "syncToken",
/// "moreComing", "records": [...], "clientChangeTokenData"?}`.
public struct WireZoneChanges: Codable, Sendable, Hashable {
    public var zoneID: WireZoneID
    public var syncToken: ServerChangeToken
    public var moreComing: Bool
    public var records: [WireRecord]
    /// Base64, as the client sent it with `records/modify`.
    public var clientChangeTokenData: String?

    public init(
        zoneID: WireZoneID, syncToken: ServerChangeToken, moreComing: Bool, records: [WireRecord],
        clientChangeTokenData: String? = nil
    ) {
        self.zoneID = zoneID
        self.syncToken = syncToken
        self.moreComing = moreComing
        self.records = records
        self.clientChangeTokenData = clientChangeTokenData
    }

    public init(_ batch: ZoneChangesBatch) {
        self.init(
            zoneID: WireZoneID(batch.zoneID),
            syncToken: batch.serverChangeToken,
            moreComing: batch.moreComing,
            records: batch.changes.map(WireRecord.init),
            clientChangeTokenData: batch.clientChangeTokenData?.base64EncodedString())
    }
}
