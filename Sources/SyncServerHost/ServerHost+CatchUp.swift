import Foundation
import SyncCore
import SyncServer

extension ServerHost {
    /// Returns once this host has applied the store's rows through `target`;
    /// one caller at a time fetches and applies rows, the others wait for it.
    package func waitUntilApplied(_ target: Int64) async throws {
        guard applied < target else { return }
        let error = await withCheckedContinuation { (continuation: CheckedContinuation<(any Error)?, Never>) in
            let start = catchUpGate.withLock { gate -> Bool in
                gate.waiters.append((target, continuation))
                guard !gate.running else { return false }
                gate.running = true
                return true
            }
            if start { Task { await self.runCatchUp() } }
        }
        if let error { throw error }
    }

    private func runCatchUp() async {
        while true {
            let target = catchUpGate.withLock { gate -> Int64? in
                guard let target = gate.waiters.map(\.target).max() else {
                    gate.running = false
                    return nil
                }
                return target
            }
            guard let target else { return }
            var failure: (any Error)?
            do {
                while applied < target {
                    let from = applied
                    let rows: [StoreRow]
                    do { rows = try await store.rows(after: from) } catch is StoreHistoryFolded {
                        // This node fell behind the rows kept after the checkpoint: start again from the checkpoint.
                        try await restoreFoldedHistory(after: from)
                        continue
                    }
                    guard !rows.isEmpty else {
                        throw ServeError("the journal in \(store.name) ends at position \(from), before position \(target)")
                    }
                    try apply(rows)
                }
            } catch {
                failure = error
            }
            let reached = applied
            let ready = catchUpGate.withLock { gate -> [CheckedContinuation<(any Error)?, Never>] in
                var ready: [CheckedContinuation<(any Error)?, Never>] = []
                gate.waiters.removeAll { waiter in
                    guard failure != nil || waiter.target <= reached else { return false }
                    ready.append(waiter.continuation)
                    return true
                }
                return ready
            }
            for continuation in ready { continuation.resume(returning: failure) }
        }
    }

    /// The rows after `applied` were folded into the stored checkpoint (this
    /// node was behind by more than the rows kept after it): replaces this
    /// node's state with the checkpoint's. Calls of this node waiting in the
    /// folded rows are answered "ask again" (their outcome was not seen here).
    package func restoreFoldedHistory(after applied: Int64) async throws {
        guard let checkpoint = try await store.checkpoint(), checkpoint.through > applied else {
            throw ServeError(
                "the rows of \(store.name) after position \(applied) were folded into a checkpoint, and no checkpoint past them is stored: the history has a hole there. Restore it from a copy")
        }
        let file: ServerStateFile
        do { file = try CheckpointFormat.decode(checkpoint.state) } catch {
            throw ServeError("the checkpoint at position \(checkpoint.through) in \(store.name) cannot be read back (\(error))")
        }
        try state.withLock { (state: inout State) throws in
            guard state.applied < checkpoint.through else { return }
            clock.set(checkpoint.time)
            state.appliedTime = checkpoint.time
            do { try Self.restore(file, into: state.core) } catch {
                let failure = "the checkpoint at position \(checkpoint.through) in \(store.name) cannot be restored (\(error))"
                state.storageFailure = failure
                throw ServeError(failure)
            }
            state.applied = checkpoint.through
            state.checkpointedThrough = checkpoint.through
            refreshSignIns(state.core.engine.users)
        }
        historyRestores.add(1, ordering: .relaxed)
    }
}
