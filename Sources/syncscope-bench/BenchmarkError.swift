import Foundation
import SyncCore
import SyncServer

struct BenchmarkError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = "benchmark failed: " + description }
}
