import Foundation
import SyncServerHost
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive lock on a data folder (`syncscope.lock`, `flock`), held
/// while a server uses the folder.
///
/// Two servers on one folder would each journal their own calls into the same
/// history and replay each other's rows at start-up: the folder's state would
/// no longer follow from its journal. The kernel drops the lock when the
/// process ends, however it ends (`kill -9` included), so a stale lock file
/// never blocks a restart.
package final class DataFolderLock: Sendable {
    private let descriptor: Int32

    /// Another process holds the folder.
    package struct InUse: Error {
        package var path: String
        /// The process that holds it, as it wrote itself into the lock file.
        package var pid: Int?
    }

    package init(directory: URL) throws {
        let path = directory.appendingPathComponent("syncscope.lock").path
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw ServeError("Cannot create \(path): \(String(cString: strerror(errno))).")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let holder = (try? String(contentsOfFile: path, encoding: .utf8)).flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            close(descriptor)
            throw InUse(path: directory.path, pid: holder)
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = pid.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        self.descriptor = descriptor
    }

    /// Lets go of the folder now (a clean stop), before this lock is freed.
    package func release() {
        _ = flock(descriptor, LOCK_UN)
    }

    deinit {
        // Closing the descriptor releases the lock.
        close(descriptor)
    }
}
