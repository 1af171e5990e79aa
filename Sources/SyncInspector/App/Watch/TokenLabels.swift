import SyncDoctor

/// Short names for a client's tokens: `T1`, `T2`, … in the order each first
/// appears in its token history (sent or given), so a person can follow one
/// token from the answer that gave it to the request that sent it back.
public struct TokenLabels: Sendable, Hashable {
    private var labels: [String: String] = [:]

    public init(_ history: [TokenHistoryEntry]) {
        for entry in history {
            for token in [entry.presented, entry.issued] {
                if let token, labels[token] == nil { labels[token] = "T\(labels.count + 1)" }
            }
        }
    }

    /// `T3`; `none` for no token; `?` for a token the history never showed.
    public func label(_ token: String?) -> String {
        guard let token else { return "none" }
        return labels[token] ?? "?"
    }
}
