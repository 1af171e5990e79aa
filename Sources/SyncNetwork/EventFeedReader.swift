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
    /// The environment whose feed (and, read as a user, data) it reads.
    public var environment: ContainerEnvironment { connection.environment }

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

    /// The server's users, by name (`admin/…/users`).
    public func userNames() async throws -> [String] {
        try WireJSON.decode(WireServerUsers.self, from: try await connection.sendRaw("GET", connection.adminPath("users"), body: nil)).users
    }

    /// A connection that reads `user`'s databases as that user (in
    /// `environment`, else the reader's), with the server admin token
    /// (`X-SyncScope-Read-As`), marked as an inspector's.
    public func connection(readingAs user: String, environment: ContainerEnvironment? = nil) -> HTTPCloudService {
        var reader = HTTPCloudService(
            baseURL: connection.baseURL, webAuthToken: connection.webAuthToken, userRecordName: user, container: connection.container,
            environment: environment ?? connection.environment, session: connection.session)
        reader.isInspector = true
        reader.readAs = user
        return reader
    }

    /// Renames one of the server's clients (`POST admin/…/clients`); answers the clients as they are now.
    public func renameClient(_ key: String, to name: String) async throws -> [WireClient] {
        let body = try WireJSON.encode(WireClientRename(client: key, name: name))
        return try WireJSON.decode(WireClients.self, from: try await connection.sendRaw("POST", connection.adminPath("clients"), body: body)).clients
    }

    /// The server's clients and their names.
    public func clients() async throws -> [WireClient] {
        try WireJSON.decode(WireClients.self, from: try await connection.sendRaw("GET", connection.adminPath("clients"), body: nil)).clients
    }
}
