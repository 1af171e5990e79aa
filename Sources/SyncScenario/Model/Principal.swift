import SyncCore
import SyncClient

/// Who performs a step that can be done by a device or, without a device, by a user.
public enum Principal: Sendable, Equatable {
    /// A declared device (and so its user).
    case device(String)
    /// A declared user, acting from no particular device.
    case user(String)
}
