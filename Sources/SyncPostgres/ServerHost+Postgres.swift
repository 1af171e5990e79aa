import Foundation
import SyncServerHost
import Logging
import SyncCore

extension ServerHost {
    /// Starts a node on the shared journal at `url`: opens the store, agrees
    /// on the seed, settings and admin token through `meta` (the first node
    /// on a new database sets them), restores the newest checkpoint, replays
    /// the rows after it, adds the configured users that are missing, then
    /// watches the journal. Store problems come back as ``ServeError``s with
    /// the store's sentence (unreachable, credentials, not migrated, other version).
    public static func start(options: ServeOptions, store url: PostgresStoreURL) async throws -> ServerHost {
        let store: PostgresJournalStore
        // The driver's own notices (such as a connection leased while its pool starts) are no news to a user.
        var logger = Logger(label: "syncscope.postgres")
        logger.logLevel = .error
        do { store = try await PostgresJournalStore.open(url, logger: logger) } catch let error as PostgresStoreError {
            throw ServeError(error.description)
        }
        return try await start(options: options, on: SharedJournalStore(journal: PostgresSharedJournal(store: store), options: options))
    }
}
