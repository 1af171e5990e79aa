import SyncCore

/// An empty JSON object, the answer of calls that return nothing.
public struct WireEmpty: Codable, Sendable, Hashable {
    public init() {}
}
