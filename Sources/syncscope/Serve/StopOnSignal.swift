import ArgumentParser
import Dispatch
import Foundation
import Logging
import SyncCore
import SyncPostgres
import SyncServer
import SyncServerHTTP

/// Ctrl-C or SIGTERM: write a checkpoint, fold the WAL into the database file, then exit.
final class StopOnSignal: Sendable {
    let host: ServerHost
    let inMemory: Bool
    nonisolated(unsafe) private var sources: [any DispatchSourceSignal] = []

    init(host: ServerHost, inMemory: Bool) {
        self.host = host
        self.inMemory = inMemory
    }

    func install() {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [host, inMemory] in
                // A clean stop: checkpoint, fold the WAL into the database file, close it.
                let done = host.stop()
                StandardOutput.write(inMemory ? "stopped; nothing kept (in memory)\n" : "stopped; \(done)\n")
                exit(0)
            }
            source.resume()
            sources.append(source)
        }
    }
}
