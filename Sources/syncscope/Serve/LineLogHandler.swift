import ArgumentParser
import Dispatch
import Foundation
import Logging
import SyncCore
import SyncPostgres
import SyncServer
import SyncServerHTTP

/// One line per message: time and text.
struct LineLogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let time = Date().formatted(.iso8601.time(includingFractionalSeconds: true))
        let level = event.level == .info ? "" : "\(event.level) "
        StandardOutput.write("\(time) \(level)\(event.message)\n")
    }
}
