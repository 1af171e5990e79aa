import Foundation
import SyncCore

/// A zone token delivered after a non-final batch.
public struct ZoneTokenUpdate: Sendable, Hashable {
    public var zoneID: RecordZoneID
    public var token: ServerChangeToken
    public var clientChangeTokenData: Data?
}
