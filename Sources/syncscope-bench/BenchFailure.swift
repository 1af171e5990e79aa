import SyncCore

/// A server's error as the bench reports it: its code and reason, not a stack of types.
struct BenchFailure: Error, CustomStringConvertible {
    let error: CloudError

    var description: String {
        let hint = error.code == .networkFailure
            ? "\nIs `syncscope serve` running there? The bench measures the server at --server, or one of its own with --http."
            : ""
        return "\(error.serverErrorCode): \(error.reason)" + hint
    }
}
