import Foundation

/// A zone as `zones/list` reports it: its ID and the token for "now".
public struct ZoneListing: Sendable, Hashable {
    public var zoneID: RecordZoneID
    public var syncToken: ServerChangeToken?

    public init(zoneID: RecordZoneID, syncToken: ServerChangeToken?) {
        self.zoneID = zoneID
        self.syncToken = syncToken
    }
}
