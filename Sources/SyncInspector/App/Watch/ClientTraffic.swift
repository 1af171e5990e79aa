import SyncWire

/// One line of a client's traffic in the inspector on a server: a request
/// it made (with its status, and whether it retried one that failed), or a
/// push it was given (and whether it fetched after it).
public struct ClientTraffic: Sendable, Hashable {
    /// The event's place in its node's feed.
    public var seq: UInt64
    public var node: String?
    /// `POST changes/zone`, or `push 2 notifications`.
    public var what: String
    public var status: Int?
    public var errorCode: String?
    /// `retry` (the same call again after it failed), `fetched after` or `no fetch after` (a push).
    public var note: String?

    /// The operations that fetch changes: what a push asks a client to do.
    static let fetches: Set<String> = ["changes/database", "changes/zone", "zones/changes", "records/changes"]

    /// `client`'s requests and delivered pushes in `events`, oldest first.
    public static func of(_ client: String, in events: [WireServerEvent]) -> [ClientTraffic] {
        var lines: [ClientTraffic] = []
        var unanswered: [Int] = []
        var previous: WireServerEvent?
        for event in events where event.trafficClient == client {
            if event.kind == "push" {
                let count = event.notificationIDs?.count ?? 1
                unanswered.append(lines.count)
                lines.append(ClientTraffic(
                    seq: event.seq, node: event.node, what: "push \(count) notification\(count == 1 ? "" : "s")", status: nil,
                    errorCode: nil, note: "no fetch after"))
                continue
            }
            let operation = event.operation ?? event.path ?? ""
            var note: String?
            if let previous, previous.operation == event.operation, let status = previous.status, status != 200 { note = "retry" }
            if fetches.contains(operation) {
                for index in unanswered { lines[index].note = "fetched after" }
                unanswered = []
            }
            lines.append(ClientTraffic(
                seq: event.seq, node: event.node, what: "\(event.method ?? "") \(operation)", status: event.status,
                errorCode: event.status == 200 ? nil : event.errorCode, note: note))
            previous = event
        }
        return lines
    }
}
