import Foundation
import SyncCore

/// A zone operation by a device.
public struct ZoneAction: Sendable, Equatable {
    public var device: String
    public var database: DatabaseScope
    public var zone: ZoneRef

    public init(device: String, database: DatabaseScope = .private, zone: ZoneRef) {
        self.device = device
        self.database = database
        self.zone = zone
    }
}
