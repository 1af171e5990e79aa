#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A tiny line logger to a file (`syncscope --log FILE`). Nothing is ever
/// written to the terminal while curses owns it.
public final class InspectorLog {
    private let file: UnsafeMutablePointer<FILE>
    public let path: String

    /// Opens (and truncates) `path`.
    public init(path: String) throws(TerminalError) {
        guard let file = fopen(path, "w") else {
            let reason = String(cString: strerror(errno))
            throw TerminalError(.setupFailed, "Cannot open the log file \(path): \(reason).")
        }
        self.file = file
        self.path = path
    }

    deinit {
        fclose(file)
    }

    /// Writes one line (a newline is added) and flushes, so the log is
    /// complete even if the program is killed.
    public func write(_ line: String) {
        fputs(line + "\n", file)
        fflush(file)
    }
}
