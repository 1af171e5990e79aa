import SyncCore

/// A local-store failure, kept apart from server errors so it stops the fetch.
struct StoreError: Error {
    var underlying: any Error
}
