import Foundation

/// One kind of item of a send (zone saves, record deletions, …), sorted: what succeeded, what
/// failed, which items leave the pending changes (sent, or failed for a reason the engine does
/// not retry), and the errors of those it keeps to send again.
struct SentOutcome<ID: Hashable & Sendable, Value> {
    var succeeded: [(ID, Value)] = []
    var failed: [(ID, CKError)] = []
    var done: [ID] = []
    var retryable: [CKError] = []

    /// Sorts `results`; a failure the engine does not retry joins `failures` (what `sendChanges` throws).
    init(_ results: [(ID, Result<Value, CKError>)], failures: inout [AnyHashable: any Error]) {
        for (id, result) in results {
            switch result {
            case .success(let value):
                succeeded.append((id, value))
                done.append(id)
            case .failure(let error):
                failed.append((id, error))
                if CKSyncEngine.keepsPending(error.code) {
                    retryable.append(error)
                } else {
                    failures[id] = error
                    done.append(id)
                }
            }
        }
    }
}
