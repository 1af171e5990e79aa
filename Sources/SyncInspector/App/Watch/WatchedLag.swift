/// How far behind the server one of a client's tokens is: what a fetch
/// from the latest token it was given for a place would bring now.
public struct WatchedLag: Sendable, Hashable {
    /// `database private` or `zone private/Notes` (``SyncDoctor/TokenHistoryEntry/target``).
    public var place: String
    /// The token the client was last given there.
    public var token: String
    /// Changes a fetch from it would bring now (`nil`: the server no longer takes the token).
    public var changes: Int?
    /// More than ``changes`` (the count stopped at one batch).
    public var more: Bool
    /// Why the token is refused, when it is.
    public var refusal: String?

    public init(place: String, token: String, changes: Int?, more: Bool = false, refusal: String? = nil) {
        self.place = place
        self.token = token
        self.changes = changes
        self.more = more
        self.refusal = refusal
    }

    /// `up to date`, `behind by 3 changes`, `token refused: …`.
    public var text: String {
        guard let changes else { return "token refused" + (refusal.map { ": \($0)" } ?? "") }
        if changes == 0 && !more { return "up to date" }
        return "behind by \(changes)\(more ? "+" : "") change\(changes == 1 && !more ? "" : "s")"
    }
}
