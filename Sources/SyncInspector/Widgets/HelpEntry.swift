/// One key binding: the keys as the user types them and what they do.
public struct HelpEntry: Hashable, Sendable {
    public var keys: String
    public var description: String

    public init(_ keys: String, _ description: String) {
        self.keys = keys
        self.description = description
    }
}
