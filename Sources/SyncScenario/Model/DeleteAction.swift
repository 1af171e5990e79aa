import Foundation
import SyncCore

/// A record deletion, kept by the device until it sends.
public struct DeleteAction: Sendable, Equatable {
    public var device: String
    public var database: DatabaseScope
    public var zone: ZoneRef
    public var recordName: String

    public init(device: String, database: DatabaseScope = .private, zone: ZoneRef, recordName: String) {
        self.device = device
        self.database = database
        self.zone = zone
        self.recordName = recordName
    }
}
