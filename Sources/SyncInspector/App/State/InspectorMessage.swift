import SyncCore
import SyncClient

/// A line at the bottom of the screen saying what just happened.
public struct InspectorMessage: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        case info
        case success
        case warning
        case error
    }

    public var text: String
    public var kind: Kind

    public init(_ text: String, kind: Kind = .info) {
        self.text = text
        self.kind = kind
    }
}
