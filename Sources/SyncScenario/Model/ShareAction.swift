import Foundation
import SyncCore

/// Sharing a private zone with other users, or stopping.
public struct ShareAction: Sendable, Equatable {
    public var device: String
    public var zone: ZoneRef
    /// User names.
    public var participants: [String]

    public init(device: String, zone: ZoneRef, participants: [String]) {
        self.device = device
        self.zone = zone
        self.participants = participants
    }
}
