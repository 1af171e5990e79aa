import Foundation
import SyncTestSupport
@testable import SyncServerHost

/// Talking to a ``ServerHost`` with no HTTP in between: what the tests of
/// one suite after another wrote for themselves.
extension APIAnswer {
    /// The answer's JSON object (empty when it is not one).
    var object: [String: Any] { ((try? JSONSerialization.jsonObject(with: body)) as? [String: Any]) ?? [:] }

    /// The objects listed under `key` (`records`, `zones`, `results`).
    func items(_ key: String) -> [[String: Any]] { object[key] as? [[String: Any]] ?? [] }
}

extension InMemorySharedJournal {
    /// A node on this journal.
    func node(_ options: ServeOptions) async throws -> ServerHost {
        try await ServerHost.start(options: options, on: SharedJournalStore(journal: self, options: options))
    }
}

/// `container`'s development database paths and calls, as the share suites
/// (``ZoneShareTests``, ``RecordShareTests``) each make them.
struct DatabaseCalls {
    let container: String

    /// `/database/1/{container}/development/{scope}/{operation}`.
    func path(_ operation: String, scope: String = "private") -> String { "/database/1/\(container)/development/\(scope)/\(operation)" }

    /// A `records/…` or `zones/…` call straight to a host, as `user`.
    func call(_ operation: String, _ json: String, user: String = "alice", scope: String = "private") -> APICall {
        APICall(method: "POST", path: path(operation, scope: scope), body: Data(json.utf8), user: user)
    }

    /// A JSON POST over raw HTTP with a user's web auth token.
    func post(_ server: LiveServer, _ path: String, _ body: String, token: String) async throws -> RawHTTP.Answer {
        try await server.raw.exchange(
            RawHTTP.request("POST", path, headers: [("Content-Type", "application/json"), ("Authorization", "Bearer \(token)")], body: Data(body.utf8)))
    }
}
