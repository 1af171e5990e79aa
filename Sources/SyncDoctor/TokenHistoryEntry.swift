import SyncWire

/// One fetch in a client's token history, reconstructed from its own
/// traffic (``TokenHistoryEntry/history(of:in:)``): the token it presented,
/// the one it was given, for which database or zone, the batch, whether more
/// was coming, and whether the client later came back with the token it was given.
public struct TokenHistoryEntry: Sendable, Hashable {
    /// The request's number in its node's feed.
    public var seq: UInt64
    public var node: String?
    public var time: Int64
    public var operation: String
    /// `database private` or `zone private/Notes`.
    public var target: String
    /// The zone's owner as the request named it (a shared zone's); `nil`: the client's user.
    public var zoneOwner: String?
    public var isZoneToken: Bool
    public var presented: String?
    public var issued: String?
    /// Records (or zones) in the batch.
    public var batch: Int
    public var moreComing: Bool
    public var errorCode: String?
    /// Whether the client presented the token it was given here in a later fetch.
    public var cameBack: Bool

    /// The client's fetches, oldest first, one entry per database or zone asked about.
    public static func history(of client: String, in events: [WireServerEvent]) -> [TokenHistoryEntry] {
        var entries: [TokenHistoryEntry] = []
        /// Where each issued token's entry is, to mark it when it comes back.
        var issuedAt: [String: [Int]] = [:]
        for event in events where event.kind == "request" && event.client == client && event.inspector != true {
            for fetch in ObservedFetch.fetches(of: event, scope: DatabasePath.scope(of: event.path ?? "")) {
                if let token = fetch.tokenIn {
                    for index in issuedAt[token] ?? [] { entries[index].cameBack = true }
                }
                if let token = fetch.tokenOut { issuedAt[token, default: []].append(entries.count) }
                entries.append(TokenHistoryEntry(
                    seq: event.seq, node: event.node, time: event.time, operation: event.operation ?? "", target: fetch.target, zoneOwner: fetch.zoneOwner,
                    isZoneToken: fetch.kind == .zone, presented: fetch.tokenIn, issued: fetch.tokenOut, batch: fetch.items, moreComing: fetch.moreComing,
                    errorCode: fetch.errorCode, cameBack: false))
            }
        }
        return entries
    }
}
