import Foundation
import Synchronization
import SyncCore
import SyncWire

/// Who the server's clients are: one app instance each, named once, stably.
///
/// A client is, in this order: `syncscope device`, by the User-Agent that
/// names its device (``DeviceUserAgent``); the device named by
/// `X-SyncScope-Device` (a push registration the server made, named so,
/// belongs to the client that made it with `tokens/create`); else the push
/// registration a long-poll polls (the same way); else a user's web auth
/// token with one User-Agent. Its short name is the user and what the
/// User-Agent says the app is (`alice · pyicloud`, `alice · CloudKit JS ·
/// Firefox`, `bob · iPad`), numbered when two would read the same; an admin
/// call renames it (``rename(_:to:)``).
///
/// The directory learns from the feed's events in their order
/// (``observe(_:)``), only when a watcher reads: a request pays nothing for it.
package final class ClientDirectory: Sendable {
    private struct Client {
        var name: String
        var user: String?
        var userAgent: String?
        var firstSeen: Milliseconds
        var lastSeen: Milliseconds
        var requests = 0
    }

    private struct State {
        var clients: [String: Client] = [:]
        /// Keys in the order the clients first appeared.
        var order: [String] = []
        /// A push registration's token → the client that made it.
        var registrations: [String: String] = [:]
        var namesTaken: Set<String> = []
        /// The last event learned from.
        var observedThrough: UInt64 = 0
    }

    private let state = Mutex(State())

    package init() {}

    /// The last feed event learned from.
    package var observedThrough: UInt64 { state.withLock { $0.observedThrough } }

    /// Learns the clients of these events (those after the last learned from, in order).
    package func observe(_ events: [ServerEvent]) {
        state.withLock { state in
            for event in events where event.sequence > state.observedThrough {
                state.observedThrough = event.sequence
                guard case .request(let request) = event.kind, !request.isInspector else { continue }
                guard let key = Self.key(of: request, state) else { continue }
                if state.clients[key] == nil {
                    let name = Self.uniqueName(Self.baseName(request, key: key), &state.namesTaken)
                    state.clients[key] = Client(name: name, user: request.user, userAgent: request.userAgent, firstSeen: event.time, lastSeen: event.time)
                    state.order.append(key)
                }
                state.clients[key]?.lastSeen = event.time
                state.clients[key]?.requests += 1
                // A registration made now: its long-polls are this client's.
                if request.operation == "tokens/create", request.status == 200, let token = Self.registrationToken(request.answerBody) {
                    state.registrations[token] = key
                }
                // A device that names itself is this client's too (the pushes to it, for one).
                if let device = request.device, key != "device:\(device)", state.registrations[device] == nil {
                    state.registrations[device] = key
                }
            }
        }
    }

    /// The client a request came from, and its name (`nil`: the server admin, or nobody signed in).
    package func client(of request: RequestEvent) -> (key: String, name: String)? {
        state.withLock { state in
            guard let key = Self.key(of: request, state) else { return nil }
            return (key, state.clients[key]?.name ?? key)
        }
    }

    /// The client a push registration (a device's channel) belongs to.
    package func client(ofDevice deviceID: String) -> (key: String, name: String)? {
        state.withLock { state in
            // A device that names itself (X-SyncScope-Device) is its own client; else the registration's maker.
            let own = "device:\(deviceID)"
            let key = state.clients[own] != nil ? own : state.registrations[deviceID] ?? own
            guard let client = state.clients[key] else { return nil }
            return (key, client.name)
        }
    }

    /// Renames a client; throws when no client has that key.
    package func rename(_ key: String, to name: String) throws(CloudError) {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.utf8.count <= WireClientRename.maxNameBytes else {
            throw CloudError(.invalidArguments, "A client's name is 1 to \(WireClientRename.maxNameBytes) bytes of text; got \(trimmed.utf8.count).")
        }
        try state.withLock { (state: inout State) throws(CloudError) in
            guard let old = state.clients[key]?.name else {
                throw CloudError(.unknownItem, "There is no client '\(key.prefix(120))'; admin/…/clients lists them.")
            }
            state.namesTaken.remove(old)
            state.namesTaken.insert(trimmed)
            state.clients[key]?.name = trimmed
        }
    }

    /// The clients seen, in the order they first appeared.
    package var list: [WireClient] {
        state.withLock { state in
            state.order.compactMap { key in
                state.clients[key].map {
                    WireClient(
                        client: key, name: $0.name, user: $0.user, userAgent: $0.userAgent, firstSeen: $0.firstSeen, lastSeen: $0.lastSeen,
                        requests: $0.requests)
                }
            }
        }
    }

    // MARK: Keys and names

    private static func key(of request: RequestEvent, _ state: State) -> String? {
        // `syncscope device` names itself in its User-Agent: that is the app instance, whatever
        // registration it uses (one an earlier run of the server made, too).
        if let user = request.user, let agent = request.userAgent, DeviceUserAgent.deviceName(in: agent) != nil { return "web:\(user):\(agent)" }
        // A registration the server made is its maker's, whether a long-poll polls it or a request names it.
        if let device = request.device { return state.registrations[device] ?? "device:\(device)" }
        if let token = request.courierToken { return state.registrations[token] ?? "device:\(token)" }
        guard let user = request.user else { return nil }
        return "web:\(user):\(request.userAgent ?? "")"
    }

    /// The user and, for a device that is its own client (by its
    /// `X-SyncScope-Device`), the device's ID; for any other, what the
    /// User-Agent says the app is (`syncscope device` says its device's name).
    private static func baseName(_ request: RequestEvent, key: String) -> String {
        let user = request.user ?? "anonymous"
        if let device = request.device, key == "device:\(device)" { return "\(user) · \(device.prefix(40))" }
        return "\(user) · \(appName(request.userAgent))"
    }

    /// What a User-Agent says the app is (for `syncscope device`, its device's name).
    package static func appName(_ userAgent: String?) -> String {
        guard let agent = userAgent, !agent.isEmpty else { return "web" }
        let lower = agent.lowercased()
        if lower.contains("pyicloud") { return "pyicloud" }
        if lower.hasPrefix("python-requests") { return "Python requests" }
        if let device = DeviceUserAgent.deviceName(in: agent) { return device }
        if lower.hasPrefix("syncscope") { return "syncscope" }
        if lower.hasPrefix("curl/") { return "curl" }
        if lower.hasPrefix("mozilla/") {
            let browser = lower.contains("firefox/") ? "Firefox"
                : lower.contains("edg/") ? "Edge"
                : lower.contains("chrome/") ? "Chrome"
                : lower.contains("safari/") ? "Safari" : "a browser"
            return "CloudKit JS · \(browser)"
        }
        return String(agent.prefix { $0 != "/" && $0 != " " }.prefix(40))
    }

    private static func uniqueName(_ base: String, _ taken: inout Set<String>) -> String {
        var name = base
        var number = 2
        while taken.contains(name) {
            name = "\(base) \(number)"
            number += 1
        }
        taken.insert(name)
        return name
    }

    /// The push registration a `tokens/create` answer made: its `apnsToken`.
    private static func registrationToken(_ body: Data) -> String? {
        guard !body.isEmpty, case .object(let object)? = try? WireJSON.decode(JSONValue.self, from: body),
              case .string(let token)? = object["apnsToken"] else { return nil }
        return token
    }
}
