import SyncServerHost
import SyncCore

/// An error answered with an HTTP status of its own (405, 415) rather than its code's.
struct Refusal: Error {
    var status: Int
    var error: CloudError
    init(status: Int, _ error: CloudError) {
        self.status = status
        self.error = error
    }
}
