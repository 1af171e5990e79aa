import Foundation
import SyncCore
import SyncServer

struct BenchmarkError: Error, CustomStringConvertible {
    /// What went wrong, without the "benchmark failed: " the description starts with.
    var message: String
    init(_ message: String) { self.message = message }
    var description: String { "benchmark failed: " + message }
}
