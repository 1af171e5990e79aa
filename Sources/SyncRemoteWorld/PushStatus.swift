import Foundation
import Synchronization
import SyncCore
import SyncClient
import SyncNetwork
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SyncSQLiteStore
import SyncWorlds

/// Whether a device's long-poll is listening.
public enum PushStatus: Sendable, Hashable {
    /// A long-poll of the webcourier URL is open (or about to be).
    case listening
    /// The long-poll fails (the server went away?); it keeps retrying.
    case failing(CloudError)
    /// The device is offline: it does not poll.
    case offline
    /// ``RemoteWorld/close()`` was called.
    case stopped
}
