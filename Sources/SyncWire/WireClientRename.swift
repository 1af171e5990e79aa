import Foundation

/// The body of `POST admin/…/clients`: a client's new short name. Ours, not CloudKit's.
public struct WireClientRename: Codable, Sendable, Hashable {
    public var client: String
    public var name: String

    public init(client: String, name: String) {
        self.client = client
        self.name = name
    }
}
