import Foundation
import Synchronization
import SyncCore

/// A shared journal in memory, with faults to inject: the test double of
/// PostgreSQL for several nodes (TigerBeetle-style). Every node's
/// ``SharedJournalStore`` holds the same instance, so they share one total
/// order, one checkpoint, one set of delivery claims and poll leases, as
/// nodes on one database do; no `initdb` needed.
///
/// It keeps the rules of ``SharedJournal`` (positions without gaps, the fold
/// mark, checksums) and lets a test break them the ways a real store breaks:
/// ``Faults``.
package final class InMemorySharedJournal: SharedJournal {
    /// What goes wrong, set by a test at any moment (``inject(_:)``).
    package struct Faults: Sendable {
        /// The next appends fail before anything is stored (the connection was refused).
        package var failAppends = 0
        /// The next appends are stored, then fail before the node hears so
        /// (a crash between the commit and its acknowledgement): the outcome is unknown to the node.
        package var loseAppendAcknowledgements = 0
        /// Every append takes this long before it commits (a slow commit).
        package var appendDelay: Duration = .zero
        /// Appends tell no watcher (lost notifications): nodes learn of new rows only when they read the tail.
        package var dropNotifications = false
    }

    private struct Claim {
        package var claimant: String
        package var written: Bool
        package var leaseUntil: Int64
    }

    private struct State {
        package var meta: [String: String] = [:]
        package var rows: [SharedJournalRow] = []
        package var tail: Int64 = 0
        package var foldedThrough: Int64 = 0
        package var checkpoint: StoreCheckpoint?
        package var claims: [String: [String: Claim]] = [:]
        package var polls: [String: [String: Int64]] = [:]
        package var watchers: [UInt64: AsyncThrowingStream<Int64, any Error>.Continuation] = [:]
        package var nextWatcher: UInt64 = 0
        package var faults = Faults()
        package var appends = 0
        package var commits = 0
    }

    private let state = Mutex(State())

    package init() {}

    package var name: String { "the in-memory shared journal" }
    package var banner: String { "store in memory (shared)" }

    package var summary: String {
        state.withLock { "\($0.appends) calls appended in \($0.commits) commits" }
    }

    /// Sets the faults from now on.
    package func inject(_ faults: Faults) { state.withLock { $0.faults = faults } }

    /// Ends every watch with an error (the watching connections dropped): nodes watch again and catch up.
    package func dropWatches() {
        let watchers = state.withLock { state in
            defer { state.watchers = [:] }
            return Array(state.watchers.values)
        }
        for watcher in watchers { watcher.finish(throwing: ServeError("the watch on \(name) was lost")) }
    }

    // MARK: Test access (what a test would do with psql)

    /// Deletes the settings (`meta`), as a damaged database would have lost them.
    package func deleteMeta() { state.withLock { $0.meta = [:] } }
    /// Deletes the stored checkpoint.
    package func deleteCheckpoint() { state.withLock { $0.checkpoint = nil } }
    /// Deletes one row without moving the fold mark (a hole).
    package func deleteRow(at position: Int64) { state.withLock { $0.rows.removeAll { $0.position == position } } }
    /// The rows kept and the position they are folded through.
    package var kept: (rows: Int, foldedThrough: Int64) { state.withLock { ($0.rows.count, $0.foldedThrough) } }

    // MARK: SharedJournal

    package func meta() async throws -> [String: String] { state.withLock { $0.meta } }

    package func insertMetaIfAbsent(_ values: [String: String]) async throws -> [String: String] {
        state.withLock { state in
            for (key, value) in values where state.meta[key] == nil { state.meta[key] = value }
            return state.meta
        }
    }

    package func setMeta(_ values: [String: String]) async throws {
        state.withLock { state in state.meta.merge(values) { _, new in new } }
    }

    package func append(_ calls: [(time: Int64, call: Data)]) async throws -> [Int64] {
        let delay = state.withLock { state -> Duration in
            state.faults.appendDelay
        }
        if delay > .zero { try await Task.sleep(for: delay) }
        let (positions, lost, watchers) = try state.withLock { state -> ([Int64], Bool, [AsyncThrowingStream<Int64, any Error>.Continuation]) in
            if state.faults.failAppends > 0 {
                state.faults.failAppends -= 1
                throw ServeError("\(name) refused the append")
            }
            var positions: [Int64] = []
            for call in calls {
                state.tail += 1
                state.rows.append(SharedJournalRow(position: state.tail, time: call.time, call: call.call))
                positions.append(state.tail)
            }
            state.appends += calls.count
            state.commits += 1
            var lost = false
            if state.faults.loseAppendAcknowledgements > 0 {
                state.faults.loseAppendAcknowledgements -= 1
                lost = true
            }
            return (positions, lost, state.faults.dropNotifications ? [] : Array(state.watchers.values))
        }
        for watcher in watchers { watcher.yield(positions.last ?? 0) }
        if lost { throw ServeError("the connection to \(name) dropped before the commit was confirmed") }
        return positions
    }

    package func tail() async throws -> Int64 { state.withLock { $0.tail } }

    package func rows(after position: Int64, limit: Int) async throws -> [SharedJournalRow] {
        let (rows, folded) = state.withLock { state -> ([SharedJournalRow], Int64) in
            guard position >= state.foldedThrough else { return ([], state.foldedThrough) }
            let start = state.rows.firstIndex { $0.position > position } ?? state.rows.endIndex
            return (Array(state.rows[start...].prefix(limit)), state.foldedThrough)
        }
        guard position >= folded else { throw StoreHistoryFolded() }
        var expected = position + 1
        for row in rows {
            guard row.position == expected else {
                throw ServeError("\(name) has no row at position \(expected) but has one at \(row.position): rows were deleted. Restore it from a copy.")
            }
            expected += 1
        }
        if rows.isEmpty, position < state.withLock({ $0.tail }) {
            throw ServeError("\(name) has no row at position \(position + 1), though its tail is past it: rows were deleted. Restore it from a copy.")
        }
        return rows
    }

    package func watchTail() async throws -> AsyncThrowingStream<Int64, any Error> {
        let (stream, continuation) = AsyncThrowingStream<Int64, any Error>.makeStream()
        let (key, tail) = state.withLock { state -> (UInt64, Int64) in
            state.nextWatcher += 1
            state.watchers[state.nextWatcher] = continuation
            return (state.nextWatcher, state.tail)
        }
        continuation.onTermination = { [weak self] _ in self?.state.withLock { _ = $0.watchers.removeValue(forKey: key) } }
        continuation.yield(tail)
        return stream
    }

    package func checkpoint() async throws -> StoreCheckpoint? { state.withLock { $0.checkpoint } }

    package func storeCheckpoint(_ checkpoint: StoreCheckpoint) async throws -> Bool {
        try state.withLock { state in
            guard checkpoint.through <= state.tail else {
                throw ServeError("A checkpoint through position \(checkpoint.through) cannot be stored: the journal ends at \(state.tail).")
            }
            if let stored = state.checkpoint, stored.through > checkpoint.through { return false }
            state.checkpoint = checkpoint
            return true
        }
    }

    package func foldRows(through position: Int64) async throws -> Int64 {
        state.withLock { state in
            let through = min(position, state.checkpoint?.through ?? 0)
            state.foldedThrough = max(state.foldedThrough, through)
            state.rows.removeAll { $0.position <= through }
            return state.foldedThrough
        }
    }

    package func openPoll(device: String, poll: String, until: Int64) async throws {
        state.withLock { $0.polls[device, default: [:]][poll] = until }
    }

    package func endPoll(device: String, poll: String, until: Int64) async throws {
        state.withLock { state in
            if state.polls[device]?[poll] != nil { state.polls[device]?[poll] = until }
        }
    }

    package func livePollsUntil(device: String, now: Int64) async throws -> Int64? {
        state.withLock { state in
            state.polls[device] = state.polls[device]?.filter { $0.value > now }
            return state.polls[device]?.values.max()
        }
    }

    package func claimDeliveries(device: String, notificationIDs: [String], claimant: String, now: Int64, leaseMilliseconds: Int64) async throws -> [String] {
        state.withLock { state in
            var claimed: [String] = []
            for id in notificationIDs {
                // As in PostgreSQL: free, written out (the device asked for it again), or its lease ran out.
                if let claim = state.claims[device]?[id], !claim.written, claim.leaseUntil >= now { continue }
                state.claims[device, default: [:]][id] = Claim(claimant: claimant, written: false, leaseUntil: now + leaseMilliseconds)
                claimed.append(id)
            }
            return claimed
        }
    }

    package func finishDeliveries(device: String, notificationIDs: [String], claimant: String, written: Bool) async throws {
        state.withLock { state in
            for id in notificationIDs where state.claims[device]?[id]?.claimant == claimant {
                if written { state.claims[device]?[id]?.written = true } else { state.claims[device]?[id] = nil }
            }
        }
    }

    package func writtenDeliveries(device: String) async throws -> [String] {
        state.withLock { state in (state.claims[device] ?? [:]).filter(\.value.written).map(\.key).sorted() }
    }

    package func dropDeliveries(device: String, notificationIDs: [String]) async throws {
        state.withLock { state in
            for id in notificationIDs { state.claims[device]?[id] = nil }
        }
    }

    /// Nodes share the instance: one node closing lets go of nothing the others use.
    package func close() {}
}
