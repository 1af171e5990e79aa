import Foundation
import SyncCore
import SyncNetwork
import SyncWorlds
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A running `syncscope serve` watched with its admin token: no device of
/// its own, every client of the server seen through its event feed, every
/// user's zones and records read as that user (`syncscope inspect --server`).
///
/// What it shows comes through the world's `ServerObserver` (an
/// ``HTTPServerObserver`` made with ``HTTPServerObserver/init(watching:)``),
/// the same interface the in-process inspector reads; it lives on the wall
/// clock, and has nothing of its own to move on.
public final class ServerWatchWorld: SyncWorld {
    /// Checks the address and the admin token (a read of the users and one of the feed),
    /// and says clearly which of them is wrong.
    public init(
        serverURL: URL, adminToken: String, container: String = "iCloud.com.example.SyncScope", environment: ContainerEnvironment = .development,
        session: URLSession = HTTPCloudService.sharedSession
    ) async throws(CloudError) {
        guard let scheme = serverURL.scheme?.lowercased(), scheme == "http" || scheme == "https", serverURL.host != nil else {
            throw CloudError(.invalidArguments, "'\(serverURL.absoluteString)' is not a server address; give one such as http://127.0.0.1:8400.")
        }
        let feed = EventFeedReader(baseURL: serverURL, adminToken: adminToken, container: container, environment: environment, session: session)
        try await Self.checkAccess(feed)
        super.init(container: container, clock: SystemClock(), isVirtualTime: false, serverObserver: HTTPServerObserver(watching: feed), eventLimit: 100)
    }

    static func checkAccess(_ feed: EventFeedReader) async throws(CloudError) {
        let address = feed.baseURL.absoluteString
        do {
            _ = try await feed.userNames()
            _ = try await feed.events(after: 0, timeout: 0, limit: 1, bodies: false)
        } catch let error as CloudError {
            switch error.code {
            case .networkFailure:
                throw CloudError(.networkFailure, "Cannot reach the SyncScope server at \(address): \(error.reason) Is `syncscope serve` running there?")
            case .authenticationFailed, .notAuthenticated, .permissionFailure:
                throw CloudError(
                    error.code,
                    "The server at \(address) does not take this admin token: \(error.reason) Pass the token `syncscope serve` printed at start-up with --admin-token, or --server-data with the server's data folder (its admin.json).")
            default:
                throw CloudError(error.code, "The server at \(address) cannot be watched: \(error.reason)")
            }
        } catch {
            throw CloudError(.networkFailure, "Cannot talk to the SyncScope server at \(address): \(error)")
        }
    }
}
