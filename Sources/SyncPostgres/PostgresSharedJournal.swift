import Foundation
import SyncServerHost
import SyncCore

/// The shared journal in PostgreSQL (`serve --store postgres://…`): a
/// ``SharedJournal`` over ``PostgresJournalStore``.
package final class PostgresSharedJournal: SharedJournal {
    package let store: PostgresJournalStore

    package init(store: PostgresJournalStore) { self.store = store }

    package var name: String { "'\(store.url.database)' at \(store.url.hostAndPort)" }
    package var banner: String { "store \(store.url)" }
    package var summary: String { store.counters.summary }

    package func meta() async throws -> [String: String] { try await store.meta() }
    package func insertMetaIfAbsent(_ values: [String: String]) async throws -> [String: String] { try await store.insertMetaIfAbsent(values) }
    package func setMeta(_ values: [String: String]) async throws { try await store.setMeta(values) }

    package func append(_ calls: [(time: Int64, call: Data)]) async throws -> [Int64] {
        try await store.append(calls).map(\.position)
    }

    package func tail() async throws -> Int64 { try await store.tail() }

    package func rows(after position: Int64, limit: Int) async throws -> [SharedJournalRow] {
        do {
            return try await store.rows(after: position, limit: limit).map { SharedJournalRow(position: $0.position, time: $0.time, call: $0.call) }
        } catch let error as PostgresStoreError where error.kind == .historyFolded {
            throw StoreHistoryFolded()
        }
    }

    package func watchTail() async throws -> AsyncThrowingStream<Int64, any Error> { try await store.watchTail().positions }

    package func checkpoint() async throws -> StoreCheckpoint? {
        try await store.checkpoint().map { StoreCheckpoint(through: $0.throughPosition, time: $0.time, state: $0.state) }
    }

    package func storeCheckpoint(_ checkpoint: StoreCheckpoint) async throws -> Bool {
        try await store.storeCheckpoint(StoredCheckpoint(throughPosition: checkpoint.through, time: checkpoint.time, format: 2, state: checkpoint.state))
    }

    package func foldRows(through position: Int64) async throws -> Int64 { try await store.foldRows(through: position) }

    package func openPoll(device: String, poll: String, until: Int64) async throws { try await store.openPoll(device: device, poll: poll, until: until) }
    package func endPoll(device: String, poll: String, until: Int64) async throws { try await store.endPoll(device: device, poll: poll, until: until) }
    package func livePollsUntil(device: String, now: Int64) async throws -> Int64? { try await store.livePollsUntil(device: device, now: now) }

    package func claimDeliveries(device: String, notificationIDs: [String], claimant: String, now: Int64, leaseMilliseconds: Int64) async throws -> [String] {
        try await store.claimDeliveries(device: device, notificationIDs: notificationIDs, claimant: claimant, now: now, leaseMilliseconds: leaseMilliseconds)
    }

    package func finishDeliveries(device: String, notificationIDs: [String], claimant: String, written: Bool) async throws {
        try await store.finishDeliveries(device: device, notificationIDs: notificationIDs, claimant: claimant, written: written)
    }

    package func writtenDeliveries(device: String) async throws -> [String] { try await store.writtenDeliveries(device: device) }
    package func dropDeliveries(device: String, notificationIDs: [String]) async throws {
        try await store.dropDeliveries(device: device, notificationIDs: notificationIDs)
    }

    package func close() { store.close() }
}
