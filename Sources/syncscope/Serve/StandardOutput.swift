import ArgumentParser
import Dispatch
import Foundation
import Logging
import SyncCore
import SyncPostgres
import SyncServer
import SyncServerHTTP

/// Writes straight to standard output, so lines show up at once even in a pipe.
///
/// A reader that went away (`syncscope serve | head`, a closed terminal) is
/// not an error worth crashing for: `FileHandle.write` traps on `EPIPE`, so
/// this writes with `write(2)` and reports whether the text got out.
enum StandardOutput {
    @discardableResult
    static func write(_ text: String) -> Bool {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Foundation.write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            bytes = bytes.dropFirst(written)
        }
        return true
    }
}
