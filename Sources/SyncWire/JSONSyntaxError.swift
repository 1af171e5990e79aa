import Foundation
import SyncCore

/// Why a text is not JSON, with where it went wrong (1-based line and column).
struct JSONSyntaxError: Error, CustomStringConvertible {
    var message: String
    var line: Int
    var column: Int

    var description: String { "\(message) at line \(line), column \(column)" }
}
