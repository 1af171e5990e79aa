import Foundation

/// `admin/…/clients`: renames one client (POST with `client` and `name`),
/// and answers the clients seen, in the order they first appeared. Ours, not CloudKit's.
public struct WireClients: Codable, Sendable, Hashable {
    public var clients: [WireClient]

    public init(clients: [WireClient]) { self.clients = clients }
}
