import Foundation

/// One event of `serve`'s event feed (`GET /admin/1/{container}/{environment}/events`),
/// as a watcher (the inspector, `syncscope doctor`) reads it. Ours, not CloudKit's.
///
/// `kind` says which fields it has:
/// - `request`: a request answered: `method`, `operation`, `path`, `user`,
///   `client`, `clientName`, `device`, `tokenIn` → `tokenOut`, `status`,
///   `errorCode`, `retryAfter`, `latencyMs`, `fault`, `inspector`, and with
///   `bodies=true` the `request` and `answer` bodies (JSON bodies only).
/// - `push`: the push layer: `action` (`created`, `queued`, `coalesced`,
///   `delivered`, `heldWhileOffline`, `dropped`, `acknowledged`, `skipped`,
///   `pruned`, `fault`, `registered`, `online`, `offline`,
///   `subscriptionDeleted`), `deviceID`, `notificationIDs`, `user`, `client`, `detail`.
/// - `change`: a zone or record a request changed: `change` (`saved`,
///   `deleted`, `zoneCreated`, `zoneDeleted`), `zone`, `recordName`, `user`,
///   `client`, `clientName` (the request's; same `seq`).
public struct WireServerEvent: Codable, Sendable, Hashable {
    /// The event's number in its node's feed.
    public var seq: UInt64
    /// The node that kept it (``WireServerEvents/node``).
    public var node: String?
    /// The journal position the node had applied (0 on a node of its own): the commit order across nodes.
    public var position: Int64
    /// Wall-clock milliseconds since 1970.
    public var time: Int64
    public var kind: String

    public var method: String?
    public var operation: String?
    public var path: String?
    public var user: String?
    /// The client's stable key.
    public var client: String?
    /// The client's short name (`alice · pyicloud`), editable with `admin/…/clients`.
    public var clientName: String?
    public var device: String?
    public var inspector: Bool?
    public var tokenIn: String?
    public var tokenOut: String?
    public var status: Int?
    public var errorCode: String?
    public var retryAfter: Double?
    public var latencyMs: Double?
    public var fault: String?
    public var request: JSONValue?
    public var answer: JSONValue?

    public var action: String?
    public var deviceID: String?
    public var notificationIDs: [String]?
    public var detail: String?

    public var change: String?
    public var zone: String?
    public var recordName: String?

    public init(seq: UInt64, node: String? = nil, position: Int64 = 0, time: Int64, kind: String) {
        self.seq = seq
        self.node = node
        self.position = position
        self.time = time
        self.kind = kind
    }
}
