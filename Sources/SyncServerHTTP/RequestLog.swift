import SyncServerHost
import Foundation
import Logging
import SyncCore

/// One line per request (unless `serve --quiet`): method, path, caller,
/// device, the change tokens it came with and got, the status, the error
/// code, the time taken and any fault injected. Never a token. An
/// inspector's reads (and a watcher's reads of the event feed) only with
/// `serve --log-inspector-reads`.
struct RequestLog: Sendable {
    let logger: Logger
    let quiet: Bool
    var logInspectorReads = false

    /// What one request did, as the line shows it.
    struct Entry {
        var method: String
        var path: String
        var caller: Identity
        var device: String?
        var tokenIn: ServerChangeToken?
        var tokenOut: ServerChangeToken?
        var status: Int
        var errorCode: String?
        var elapsed: Duration
        var note: String?
    }

    /// Whether a request gets a line.
    func logs(inspector: Bool) -> Bool { !quiet && (!inspector || logInspectorReads) }

    func write(_ entry: Entry) {
        logger.info("\(Self.line(entry))")
    }

    /// The line, with the method cut to 20 characters, the path to 200 and the device to 64.
    static func line(_ entry: Entry) -> String {
        let ms = Double(entry.elapsed.components.attoseconds) / 1e15 + Double(entry.elapsed.components.seconds) * 1000
        let tokens = (entry.tokenIn != nil || entry.tokenOut != nil)
            ? " token \(entry.tokenIn.map { "…" + $0.shortForm } ?? "none") → \(entry.tokenOut.map { "…" + $0.shortForm } ?? "none")" : ""
        let error = entry.status == 200 ? "" : " \(entry.errorCode ?? "")"
        let who: String
        switch entry.caller {
        case .anonymous: who = "-"
        case .user(let name): who = name
        case .serverAdmin: who = "(server admin)"
        case .serverKey(let keyID): who = "(server key \(keyID.prefix(64)))"
        }
        return "\(entry.method.prefix(20)) \(entry.path.prefix(200)) user=\(who) device=\(entry.device.map { String($0.prefix(64)) } ?? "-")\(tokens) → \(entry.status)\(error) \(String(format: "%.2f", ms)) ms\(entry.note.map { " [\($0)]" } ?? "")"
    }
}
