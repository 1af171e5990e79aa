import ArgumentParser
import Foundation
import Synchronization
import SyncCore
import SyncNetwork
import SyncServerHTTP

/// A client call that failed at run time (the server said no, or could not
/// be reached): printed as `Error: …` with exit status 1. Usage mistakes stay
/// `ValidationError`s (exit status 64, with the command's usage).
struct ClientFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }

    /// The server's code and reason, and what to do next where that is clear.
    init(_ error: CloudError) {
        var text = "\(error.serverErrorCode): \(error.reason)"
        switch error.code {
        case .networkFailure:
            text += "\nIs `syncscope serve` running there? Pass --server http://HOST:PORT for another address."
        case .changeTokenExpired:
            text += "\nFetch again without --since to get everything, then reconcile."
        default:
            break
        }
        description = text
    }
}
