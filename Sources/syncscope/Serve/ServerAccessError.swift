import ArgumentParser
import Foundation
import SyncCore
import SyncServerHTTP

/// The server cannot be used as asked (no token to be found, an unknown
/// user): printed as `Error: …` with exit status 1; the options themselves parsed fine.
struct ServerAccessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
