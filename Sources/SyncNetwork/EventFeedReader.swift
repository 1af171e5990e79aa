import Foundation
import SyncCore
import SyncWire
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Reads a `syncscope serve`'s event feed (`admin/…/events`) with the server
/// admin token: a page at a time, or waiting for the next events (a long-poll).
/// Its requests are an inspector's (`X-SyncScope-Inspector`).
public struct EventFeedReader: Sendable {
    public let baseURL: URL
    let adminToken: String
    public let container: String
    public let environment: ContainerEnvironment
    let session: URLSession

    public init(
        baseURL: URL, adminToken: String, container: String = "iCloud.com.example.SyncScope", environment: ContainerEnvironment = .development,
        session: URLSession = HTTPCloudService.sharedSession
    ) {
        self.baseURL = baseURL
        self.adminToken = adminToken
        self.container = container
        self.environment = environment
        self.session = session
    }

    /// The events after `after`, waiting up to `timeout` seconds for one when there are none yet.
    public func events(after: UInt64, timeout: Double = 0, limit: Int = 1000, bodies: Bool = true) async throws -> WireServerEvents {
        let escaped = container.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? container
        let query = "after=\(after)&timeout=\(timeout)&limit=\(limit)&bodies=\(bodies)"
        let data = try await get("/admin/1/\(escaped)/\(environment.rawValue)/events?\(query)", timeout: timeout + 30)
        return try WireJSON.decode(WireServerEvents.self, from: data)
    }

    /// Every event the feed holds now, in pages.
    public func allEvents(bodies: Bool = true) async throws -> WireServerEvents {
        var page = try await events(after: 0, bodies: bodies)
        var all = page.events
        let missed = page.missed
        while !page.events.isEmpty {
            page = try await events(after: page.next, bodies: bodies)
            all += page.events
        }
        return WireServerEvents(node: page.node, events: all, next: page.next, missed: missed)
    }

    /// The server's clients and their names.
    public func clients() async throws -> [WireClient] {
        let escaped = container.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? container
        return try WireJSON.decode(WireClients.self, from: try await get("/admin/1/\(escaped)/\(environment.rawValue)/clients", timeout: 30)).clients
    }

    private func get(_ pathAndQuery: String, timeout: Double) async throws -> Data {
        guard let url = URL(string: baseURL.absoluteString.trimmingSuffix("/") + pathAndQuery) else {
            throw CloudError(.invalidArguments, "'\(pathAndQuery)' does not make a URL with \(baseURL).")
        }
        var request = URLRequest(url: url)
        request.setValue("Bearer \(adminToken)", forHTTPHeaderField: "Authorization")
        request.setValue("1", forHTTPHeaderField: "X-SyncScope-Inspector")
        request.timeoutInterval = timeout
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw CloudError(.networkFailure, "The server at \(baseURL.absoluteString) could not be reached: \(error.localizedDescription)")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else {
            let reason = (try? WireJSON.decode(WireError.self, from: data))?.reason ?? "status \(status)"
            throw CloudError(status == 403 || status == 401 ? .notAuthenticated : .networkFailure, "\(baseURL.absoluteString): \(reason)")
        }
        return data
    }
}
