import Foundation
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
