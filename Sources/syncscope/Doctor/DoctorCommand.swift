import ArgumentParser
import Foundation
import SyncCore
import SyncDoctor
import SyncNetwork
import SyncServerHost
import SyncWire

/// `syncscope doctor`: names the mistakes a running server's clients made,
/// from its event feed, for a person or a CI job.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Name the sync mistakes a running server's clients made, from its event feed.",
        discussion: """
            Reads the event feed of a running `syncscope serve` (with the server admin token) and \
            names each client mistake it shows: fetching from no token while holding one, the wrong \
            kind of token, a moreComing not followed, a retry before retryAfter, an expired token \
            sent again, a long-poll storm, a push not followed by a fetch, a conflict loop, a batch \
            over the limit sent again, writes to a zone that is not there, a token taken before the \
            data. One diagnosis per line, with the requests that show it and the lesson that teaches \
            the fix. Run your client's tests against `syncscope serve`, then \
            `syncscope doctor --fail-on warning` in CI. Pass --server once per node of a shared store.
            """)

    @Option(name: .customLong("server"), help: "The server's address (repeat for each node of a shared store).")
    var servers: [String] = ["http://127.0.0.1:8400"]

    @OptionGroup var admin: AdminAccessOptions

    @Option(help: "Only traffic of the last DURATION: 90s, 10m, 2h (default: all the feed holds).")
    var since: String?

    @Flag(help: "One JSON object per line (code, severity, client, user, summary, evidence, lesson).")
    var json = false

    @Option(name: .customLong("fail-on"), help: "Exit with status 1 when a diagnosis of this severity or worse is found: warning or error.")
    var failOn: DiagnosisSeverity?

    func validate() throws {
        for server in servers { _ = try Self.url(server) }
        if let since { _ = try Self.milliseconds(since) }
    }

    static func url(_ text: String) throws -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host?.isEmpty == false else {
            throw ValidationError("--server must be an http:// address with a host, such as http://127.0.0.1:8400 (got '\(text)').")
        }
        return url
    }

    /// `90s`, `10m`, `2h`, `1d` (or plain seconds) in milliseconds.
    static func milliseconds(_ text: String) throws -> Int64 {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        var number = Substring(text)
        var unit = 1.0
        if let last = text.last, let factor = units[last] {
            number = text.dropLast()
            unit = factor
        }
        guard let value = Double(number), value.isFinite, value > 0 else {
            throw ValidationError("--since must be a duration such as 90s, 10m or 2h (got '\(text)').")
        }
        return Int64(value * unit * 1000)
    }

    func run() async throws {
        let token: String
        switch admin.token() {
        case .success(let found): token = found
        case .failure(let missing): throw Self.failure(missing.message)
        }
        var feeds: [[WireServerEvent]] = []
        for server in servers {
            do {
                feeds.append(try await EventFeedReader(baseURL: try Self.url(server), adminToken: token).allEvents().events)
            } catch let error as CloudError {
                throw Self.failure("Cannot read the event feed: \(error.reason)")
            }
        }
        var events = WireServerEvents.merge(feeds)
        let now = SystemClock().now()
        if let since {
            let from = now - (try Self.milliseconds(since))
            events.removeAll { $0.time < from }
        }
        let diagnoses = SyncDoctor().diagnose(events, now: now)
        for diagnosis in diagnoses {
            StandardOutput.write((json ? (try WireJSON.string(diagnosis)) : diagnosis.line) + "\n")
        }
        if !json, diagnoses.isEmpty {
            let clients = Set(events.compactMap { $0.inspector == true ? nil : $0.client }).count
            StandardOutput.write("No client mistakes found in \(events.count) events of \(clients) client\(clients == 1 ? "" : "s").\n")
        }
        if let failOn, diagnoses.contains(where: { $0.severity >= failOn }) { throw ExitCode(1) }
    }

    /// The feed could not be read: said on standard error, exit status 2 (1 means "mistakes found").
    static func failure(_ text: String) -> ExitCode {
        FileHandle.standardError.write(Data("Error: \(text)\n".utf8))
        return ExitCode(2)
    }
}

extension DiagnosisSeverity: ExpressibleByArgument {}
