import Foundation

/// The body of `POST admin/…/clients`: a client's new short name. Ours, not CloudKit's.
public struct WireClientRename: Codable, Sendable, Hashable {
    public var client: String
    public var name: String

    /// A client's name is 1 to this many bytes of text (the server refuses others).
    public static let maxNameBytes = 80

    public init(client: String, name: String) {
        self.client = client
        self.name = name
    }
}
