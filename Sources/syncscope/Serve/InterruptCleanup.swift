import ArgumentParser
import Foundation
import Synchronization
import SyncCore
import SyncNetwork
import SyncServerHTTP

/// Runs `cleanup` (once) when one of `signals` arrives, instead of the
/// signal's default of ending the process on the spot.
final class InterruptCleanup {
    private let sources: [any DispatchSourceSignal]

    init(signals: [Int32], cleanup: @escaping @Sendable (Int32) async -> Void) {
        let once = Mutex(false)
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                guard once.withLock({ fired in defer { fired = true }; return !fired }) else { return }
                Task { await cleanup(number) }
            }
            source.resume()
            return source
        }
    }

    func cancel() {
        for source in sources { source.cancel() }
    }
}
