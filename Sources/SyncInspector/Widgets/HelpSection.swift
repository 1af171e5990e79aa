/// A group of key bindings under a heading (empty title for none).
public struct HelpSection: Hashable, Sendable {
    public var title: String
    public var entries: [HelpEntry]

    public init(_ title: String, _ entries: [HelpEntry]) {
        self.title = title
        self.entries = entries
    }

    /// A section without a heading.
    public init(_ entries: [HelpEntry]) {
        self.init("", entries)
    }
}
