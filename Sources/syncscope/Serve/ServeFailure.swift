import ArgumentParser
import Dispatch
import Foundation
import Logging
import SyncCore
import SyncPostgres
import SyncServer
import SyncServerHTTP

/// `syncscope serve` could not start: printed as `Error: …`, exit status 1.
struct ServeFailure: Error, CustomStringConvertible {
    var description: String
}
