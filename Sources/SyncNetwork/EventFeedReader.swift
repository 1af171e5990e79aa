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
    let connection: HTTPCloudService

    public init(
        baseURL: URL, adminToken: String, container: String = "iCloud.com.example.SyncScope", environment: ContainerEnvironment = .development,
        session: URLSession = HTTPCloudService.sharedSession
    ) {
        var connection = HTTPCloudService(
            baseURL: baseURL, webAuthToken: adminToken, userRecordName: "(server admin)", container: container, environment: environment, session: session)
        connection.isInspector = true
        self.connection = connection
    }

    public var baseURL: URL { connection.baseURL }

    /// The events after `after`, waiting up to `timeout` seconds for one when there are none yet.
    public func events(after: UInt64, timeout: Double = 0, limit: Int = 1000, bodies: Bool = true) async throws -> WireServerEvents {
        try WireJSON.decode(WireServerEvents.self, from: try await eventsJSON(after: after, timeout: timeout, limit: limit, bodies: bodies))
    }

    /// ``events(after:timeout:limit:bodies:)``'s page as the server wrote it (a ``WireServerEvents`` in JSON), not decoded.
    public func eventsJSON(after: UInt64, timeout: Double = 0, limit: Int = 1000, bodies: Bool = true) async throws -> Data {
        let query = "after=\(after)&timeout=\(timeout)&limit=\(limit)&bodies=\(bodies)"
        return try await connection.sendRaw("GET", connection.adminPath("events") + "?" + query, body: nil, timeout: timeout + 30)
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
        try WireJSON.decode(WireClients.self, from: try await connection.sendRaw("GET", connection.adminPath("clients"), body: nil)).clients
    }
}
