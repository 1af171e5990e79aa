/// A client's new short name as the person types it (`n` in the inspector
/// on a server): Enter gives it to the server, Esc lets it go.
public struct ClientRenaming: Sendable, Equatable {
    /// The client's key (``WatchedClient/key``).
    public var key: String
    /// The name it had when the renaming began.
    public var from: String
    /// The name typed so far.
    public var text: String

    public init(key: String, from: String, text: String) {
        self.key = key
        self.from = from
        self.text = text
    }
}
