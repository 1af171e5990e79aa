import Foundation
import Synchronization
import SyncCore

/// One transaction for every call of a node waiting while the previous one
/// commits (group commit on a ``SharedJournal``).
package final class SharedJournalAppender: Sendable {
    package typealias Outcome = Result<Int64, any Error>
    private struct Pending: Sendable {
        package var time: Int64
        package var call: JournaledCall
        package var continuation: CheckedContinuation<Outcome, Never>
    }
    private struct State {
        package var queue: [Pending] = []
        package var running = false
    }
    private let state = Mutex(State())
    private let journal: any SharedJournal
    package static let maxBatch = 256
    /// Applies a committed batch on this node before its callers resume
    /// (saves fetching rows it already holds); rows out of turn are left to catching up.
    private let applyCommitted = Mutex<(@Sendable ([StoreRow]) -> Void)?>(nil)

    package func onCommitted(_ apply: @escaping @Sendable ([StoreRow]) -> Void) { applyCommitted.withLock { $0 = apply } }

    package init(journal: any SharedJournal) { self.journal = journal }

    /// Appends one call; returns its position once its transaction commits.
    package func append(time: Int64, call: JournaledCall) async -> Outcome {
        await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
            let start = state.withLock { state -> Bool in
                state.queue.append(Pending(time: time, call: call, continuation: continuation))
                guard !state.running else { return false }
                state.running = true
                return true
            }
            if start { Task { await self.drain() } }
        }
    }

    private func drain() async {
        while true {
            let batch = state.withLock { state -> [Pending]? in
                guard !state.queue.isEmpty else {
                    state.running = false
                    return nil
                }
                let count = min(state.queue.count, Self.maxBatch)
                defer { state.queue.removeFirst(count) }
                return Array(state.queue.prefix(count))
            }
            guard let batch else { return }
            do {
                // One statement, never sent again: each row keeps the time its caller asked for.
                let positions = try await journal.append(batch.map { (time: $0.time, call: $0.call.encoded()) })
                if let apply = applyCommitted.withLock({ $0 }) {
                    apply(zip(batch, positions).map { StoreRow(position: $1, time: $0.time, call: $0.call.call, origin: $0.call.origin) })
                }
                for (pending, position) in zip(batch, positions) { pending.continuation.resume(returning: .success(position)) }
            } catch {
                for pending in batch { pending.continuation.resume(returning: .failure(error)) }
            }
        }
    }
}
