import Foundation
import SyncServerHost

/// Runs blocking work (a commit, closing a database) on a thread of its own
/// and suspends the caller until it is done: a thread of the cooperative
/// pool never waits on a lock, a semaphore or the disk for it.
package enum OwnThread {
    package static func run<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { (continuation: CheckedContinuation<Result, Never>) in
            let thread = Thread { continuation.resume(returning: body()) }
            thread.name = "syncscope store"
            thread.start()
        }
    }
}
