import SyncServerHost
import Foundation
import HTTPTypes
import Hummingbird
import SyncCore
import SyncWire

/// The event feed's routes, with the server admin token:
/// `GET /admin/1/{container}/{environment}/events?after=N&timeout=S&limit=L&bodies=true`
/// (a long-poll: the events after `after`, waiting up to `timeout` seconds
/// for one when there are none yet), and `admin/…/clients` (GET lists the
/// clients, POST `{"client", "name"}` renames one). Answered outside the
/// state lock, from ``ServerEventFeed`` alone.
struct EventFeedRoutes: Sendable {
    let feed: ServerEventFeed

    /// How long a long-poll's short page waits to fill after its first event: a
    /// human watching sees no delay, and a busy server answers a watcher tens of
    /// times a second rather than once per event.
    static let gather = Duration.milliseconds(20)

    static let adminOnly = CloudError(
        .permissionFailure,
        "The event feed shows every user's requests, so it needs the server's admin token (printed by syncscope serve at start-up and kept in admin.json in its data folder), sent as 'Authorization: Bearer ADMIN_TOKEN'.")

    func answer(_ operation: String, method: String, query: Parameters, body: Data) async throws -> APIAnswer {
        switch operation {
        case "events":
            guard feed.isOn else {
                throw CloudError(.invalidArguments, "This server keeps no event feed (it was started with --event-feed 0).")
            }
            let after = try number(query, "after", default: 0)
            let timeout = min(try number(query, "timeout", default: 0), 300)
            let limit = max(1, Int(min(try number(query, "limit", default: 1000), 10_000)))
            let bodies = flag(query, "bodies")
            let inspectorReads = flag(query, "inspectorReads")
            var sequence = UInt64(after)
            if sequence > feed.newest {
                // No event of this feed is numbered so far: the cursor came from an earlier run of
                // the server (or another node). Answered at once, from the feed's start (its node tells).
                sequence = 0
            } else if timeout > 0 {
                let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
                if feed.newest <= sequence { await feed.wait(after: sequence, until: deadline) }
                // A short page of a busy feed waits a moment to fill (a watcher reads pages, not single events).
                let gather = feed.gatherWait(after: sequence, limit: limit, gather: Self.gather)
                if gather > .zero { try? await Task.sleep(until: min(deadline, ContinuousClock.now + gather)) }
            }
            return APIAnswer(body: try feed.readJSON(after: sequence, limit: limit, bodies: bodies, inspectorReads: inspectorReads))
        default:
            // The names are learned from the feed: catch up first (a client just seen can be renamed).
            feed.learnClients()
            if method == "POST", !body.isEmpty {
                let rename = try WireJSON.decode(WireClientRename.self, from: body)
                try feed.clients.rename(rename.client, to: rename.name)
            }
            return APIAnswer(body: try WireJSON.encode(WireClients(clients: feed.clients.list)))
        }
    }

    private func number(_ query: Parameters, _ name: String, default value: Double) throws -> Double {
        guard let text = query[Substring(name)] else { return value }
        guard let number = Double(String(text)), number.isFinite, number >= 0 else {
            throw CloudError(.invalidArguments, "\(name) must be a number, 0 or more; got '\(text.prefix(40))'.")
        }
        return number
    }

    private func flag(_ query: Parameters, _ name: String) -> Bool {
        guard let text = query[Substring(name)]?.lowercased() else { return false }
        return text == "true" || text == "1" || text == "yes"
    }
}

extension WebServicesRoute.Handling {
    var isEventFeed: Bool {
        if case .eventFeed = self { return true }
        return false
    }

    var isLongPoll: Bool {
        if case .longPoll = self { return true }
        return false
    }
}
