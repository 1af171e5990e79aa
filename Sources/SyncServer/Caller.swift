import Foundation
import SyncCore

/// Who is asking: a user, and the device they ask from.
public struct Caller: Sendable, Hashable, CustomStringConvertible {
    public var user: String
    public var deviceID: String?

    public init(user: String, deviceID: String? = nil) {
        self.user = user
        self.deviceID = deviceID
    }

    public var description: String { deviceID.map { "\(user)/\($0)" } ?? user }
}
