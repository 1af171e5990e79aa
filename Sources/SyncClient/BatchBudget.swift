import SyncCore

/// Counts fetched batches against `stopAfterBatches`.
final class BatchBudget {
    let limit: Int?
    var used = 0

    init(limit: Int?) {
        self.limit = limit
    }

    var remaining: Int? { limit.map { max(0, $0 - used) } }
}
