import SyncCore

/// Why a fetch run was scheduled.
public enum FetchReason: String, Sendable, Hashable {
    /// A push notification said something changed.
    case push
    /// The device is back online: notifications may have been dropped or
    /// coalesced away while it was not.
    case cameOnline
    /// The app asked for it.
    case manual
}
