import ArgumentParser
import Foundation
import Synchronization
import SyncCore
import SyncNetwork
import SyncServerHost
import SyncServerSQLite
import SyncServerHTTP

struct ClientCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "client",
        abstract: "Talk to a running `syncscope serve` as one user: zones, saves, queries, change fetches, push.",
        subcommands: [
            ClientZones.self, ClientCreateZone.self, ClientSave.self, ClientDelete.self, ClientFetch.self, ClientQuery.self, ClientUpload.self, ClientChanges.self,
            ClientWatch.self, ClientShare.self, ClientExport.self, ClientImport.self, ClientReset.self,
            ClientFaults.self,
        ]
    )
}

/// Where the server is and who is asking (``ServerAccessOptions``), plus what only `client` takes.
struct ClientOptions: ParsableArguments {
    @OptionGroup(title: "Server access")
    var access: ServerAccessOptions

    @Option(help: "Device ID sent as X-SyncScope-Device (the server does not push a device its own changes). Default: none.")
    var device: String?

    @Option(name: .customLong("admin-token"), help: "The server admin token, for export, import and reset (default: from admin.json in --server-data).")
    var adminToken: String?

    /// `--data`, the older name of `--server-data`.
    @Option(name: .customLong("data"), help: .private)
    var olderServerData: String?

    mutating func validate() throws {
        try access.adopt(serverData: olderServerData, spelled: "--data")
        olderServerData = nil
    }

    /// The user to act as.
    var user: String { access.user }

    func service() throws -> HTTPCloudService {
        HTTPCloudService(
            baseURL: try access.serverURL(), webAuthToken: try access.webAuthToken(), userRecordName: access.user, deviceID: device,
            container: access.container, environment: access.environment)
    }

    /// A connection signed in with the server admin token (whole-server calls).
    func adminService() throws -> HTTPCloudService {
        HTTPCloudService(
            baseURL: try access.serverURL(), webAuthToken: try serverAdminToken(), userRecordName: "(server admin)", container: access.container,
            environment: access.environment)
    }

    func serverAdminToken() throws -> String {
        if let adminToken { return adminToken }
        let file = access.serverDataDirectory.appendingPathComponent("admin.json")
        struct Admin: Decodable { var adminToken: String }
        guard let data = try? Data(contentsOf: file), let admin = try? JSONDecoder().decode(Admin.self, from: data) else {
            throw ClientFailure(
                "No --admin-token given and \(file.path) cannot be read. Export, import and reset act on every user, so they need the server admin token: pass --admin-token (syncscope serve prints it), or --server-data with the server's data folder.")
        }
        return admin.adminToken
    }
}


/// A client call that failed at run time (the server said no, or could not
/// be reached): printed as `Error: …` with exit status 1. Usage mistakes stay
/// `ValidationError`s (exit status 64, with the command's usage).
struct ClientFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }

    /// The server's code and reason, and what to do next where that is clear.
    init(_ error: CloudError) {
        var text = "\(error.serverErrorCode): \(error.reason)"
        switch error.code {
        case .networkFailure:
            text += "\nIs `syncscope serve` running there? Pass --server http://HOST:PORT for another address."
        case .changeTokenExpired:
            text += "\nFetch again without --since to get everything, then reconcile."
        default:
            break
        }
        description = text
    }
}

/// Runs a client call, printing a CloudError as its reason rather than a stack of types.
func clientRun(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as CloudError {
        throw ClientFailure(error)
    }
}

func describe(_ record: Record) -> String {
    let fields = record.fields.map { " \($0.name)=\($0.value.displayString)" }.joined()
    return "\(record.recordID.recordName) (\(record.recordType), tag \(record.recordChangeTag ?? "-"))\(fields)"
}

struct ClientZones: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "zones", abstract: "List the zones of a database with their current tokens.")
    @OptionGroup var options: ClientOptions
    @Option(help: "private, shared or public.") var database: DatabaseScope = .private

    func run() async throws {
        try await clientRun {
            for zone in try await options.service().listRecordZones(in: database) {
                print("\(zone.zoneID.zoneName) (owner \(zone.zoneID.ownerName))\(zone.syncToken.map { "  token \($0.rawValue)" } ?? "")")
            }
        }
    }
}

extension DatabaseScope: ExpressibleByArgument {}

struct ClientCreateZone: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "create-zone", abstract: "Create a zone in your private database.")
    @OptionGroup var options: ClientOptions
    @Argument(help: "Zone name.") var zone: String

    func run() async throws {
        try await clientRun {
            for result in try await options.service().modifyRecordZones(
                in: .private, saving: [RecordZoneID(zoneName: zone, ownerName: options.user)], deleting: []) {
                print("created zone \(try result.get().zoneID.zoneName)")
            }
        }
    }
}

struct ClientSave: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "save", abstract: "Save a record: syncscope client save Notes note-1 title=Hello stars=5")
    @OptionGroup var options: ClientOptions
    @Argument(help: "Zone name.") var zone: String
    @Argument(help: "Record name.") var record: String
    @Argument(help: "Fields as name=value (integers become INT64, decimals DOUBLE, the rest STRING).") var fields: [String] = []
    @Option(help: "Record type.") var type = "Note"
    @Option(help: "The owner of the zone, for a zone shared with you (then the shared database is used). Default: you.") var owner: String?

    func validate() throws { _ = try parsedFields() }

    func parsedFields() throws -> RecordFields {
        var values = RecordFields()
        for field in fields {
            let parts = field.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty else {
                throw ValidationError("'\(field)' is not name=value (for example title=Hello).")
            }
            if let integer = Int64(parts[1]) {
                values[parts[0]] = .int64(integer)
            } else if let double = Double(parts[1]), double.isFinite, parts[1].contains(".") {
                values[parts[0]] = .double(double)
            } else {
                values[parts[0]] = .string(parts[1])
            }
        }
        return values
    }

    func run() async throws {
        let values = try parsedFields()
        let scope: DatabaseScope = owner == nil || owner == options.user ? .private : .shared
        let zoneID = RecordZoneID(zoneName: zone, ownerName: owner ?? options.user)
        let saved = Record(recordID: RecordID(recordName: record, zoneID: zoneID), recordType: type, fields: values)
        try await clientRun {
            for result in try await options.service().modifyRecords(
                in: scope, zoneID: zoneID, operations: [.save(saved, policy: .changedKeys)]) {
                if case .saved(let record) = try result.get() { print("saved \(describe(record))") }
            }
        }
    }
}

struct ClientDelete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete a record.")
    @OptionGroup var options: ClientOptions
    @Argument(help: "Zone name.") var zone: String
    @Argument(help: "Record name.") var record: String
    @Option(help: "The owner of the zone, for a zone shared with you (then the shared database is used). Default: you.") var owner: String?

    func run() async throws {
        let scope: DatabaseScope = owner == nil || owner == options.user ? .private : .shared
        let zoneID = RecordZoneID(zoneName: zone, ownerName: owner ?? options.user)
        try await clientRun {
            for result in try await options.service().modifyRecords(
                in: scope, zoneID: zoneID, operations: [.delete(RecordID(recordName: record, zoneID: zoneID))]) {
                _ = try result.get()
                print("deleted \(record)")
            }
        }
    }
}

struct ClientFetch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch", abstract: "Fetch a zone's changes since a token (none: everything), and print the new token.")
    @OptionGroup var options: ClientOptions
    @Argument(help: "Zone name.") var zone: String
    @Option(help: "The token of your last fetch (default: none, fetch everything).") var since: String?
    @Option(help: "The owner of the zone, for a zone shared with you. Default: you.") var owner: String?
    @Option(name: .customLong("results-limit"), parsing: .unconditional, help: "Entries per batch (default: the server's limit). The command fetches every batch.")
    var resultsLimit: Int?

    func validate() throws {
        if let resultsLimit, resultsLimit < 1 { throw ValidationError("--results-limit must be at least 1 (got \(resultsLimit)).") }
    }

    func run() async throws {
        let scope: DatabaseScope = owner == nil || owner == options.user ? .private : .shared
        let zoneID = RecordZoneID(zoneName: zone, ownerName: owner ?? options.user)
        var token = since.map(ServerChangeToken.init(rawValue:))
        print(token == nil ? "fetching \(zone) with NO token (everything)" : "fetching \(zone) since \(token?.description ?? "")")
        try await clientRun {
            let service = try options.service()
            var batches = 0
            while true {
                let batch = try await service.fetchRecordZoneChanges(
                    in: scope, [ZoneChangesRequest(zoneID: zoneID, previousServerChangeToken: token, resultsLimit: resultsLimit)])[0].get()
                batches += 1
                for change in batch.changes {
                    switch change {
                    case .changed(let record): print("  changed \(describe(record))")
                    // The server sends no type with a deletion (as CloudKit does); this client keeps no cache to tell it.
                    case .deleted(let id, let type): print("  deleted \(id.recordName)\(type.isEmpty ? "" : " (\(type))")")
                    }
                }
                token = batch.serverChangeToken
                if !batch.moreComing || batches >= 10_000 { break }
                print("  … moreComing, next batch")
            }
            print("new token (pass it as --since next time):\n\(token?.rawValue ?? "")")
        }
    }
}

struct ClientChanges: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "changes", abstract: "Fetch which zones of a database changed since a token (changes/database).")
    @OptionGroup var options: ClientOptions
    @Option(help: "The token of your last `changes` (default: none, list every zone).") var since: String?
    @Option(help: "private or shared (the public database has no change fetching).") var database: DatabaseScope = .private

    func run() async throws {
        try await clientRun {
            let batch = try await options.service().fetchDatabaseChanges(
                in: database, since: since.map(ServerChangeToken.init(rawValue:)), resultsLimit: nil)
            for change in batch.changes {
                switch change {
                case .zoneChanged(let id): print("  changed zone \(id.zoneName) (owner \(id.ownerName))")
                case .zoneRemoved(let id, let reason): print("  removed zone \(id.zoneName) (\(reason.rawValue))")
                }
            }
            if batch.changes.isEmpty { print("  no zone changed") }
            print("new token (pass it as --since next time):\n\(batch.serverChangeToken.rawValue)")
        }
    }
}

struct ClientWatch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Register a device, subscribe to your private database, and print push notifications as they arrive.",
        discussion: """
            The subscription is the watch's own (syncscope-watch-DEVICE) and is deleted when the watch ends: \
            after --seconds or --count, when its reader goes away, on Ctrl-C and on SIGTERM. Left behind, \
            it would push every later change to your other devices a second time. Each line is one \
            notification (the web courier answers one per poll) and how long after the change it came, \
            from the server's queuedAt.
            """)
    @OptionGroup var options: ClientOptions
    @Option(parsing: .unconditional, help: "Stop after this many seconds.") var seconds: Double = 300
    @Option(parsing: .unconditional, help: "Stop after this many notifications (default: no limit).") var count: Int?

    func validate() throws {
        guard seconds > 0, seconds.isFinite else { throw ValidationError("--seconds must be more than 0 (got \(seconds)).") }
        if let count, count < 1 { throw ValidationError("--count must be at least 1 (got \(count)).") }
    }

    func run() async throws {
        try await clientRun {
            let device = try await options.service().withNewDevice()
            try await device.registerForPushNotifications()
            let subscriptionID = "syncscope-watch-\(device.deviceID ?? UUID().uuidString)"
            let removeSubscription: @Sendable () async -> Void = {
                _ = try? await device.modifySubscriptions(in: .private, saving: [], deleting: [subscriptionID])
            }
            // Ctrl-C and SIGTERM end the watch without leaving its subscription behind.
            let interrupts = InterruptCleanup(signals: [SIGINT, SIGTERM]) { signal in
                await removeSubscription()
                Foundation.exit(128 + signal)
            }
            defer { interrupts.cancel() }
            let results = try await device.modifySubscriptions(
                in: .private, saving: [.database(DatabaseSubscription(subscriptionID: subscriptionID))], deleting: [])
            for result in results { _ = try result.get() }
            do {
                try await watch(device, subscriptionID: subscriptionID)
            } catch {
                await removeSubscription()
                throw error
            }
            await removeSubscription()
        }
    }

    private func watch(_ device: HTTPCloudService, subscriptionID: String) async throws {
        // Written straight through, so each line shows at once even when the output is a pipe or a file.
        // A reader that went away (`watch | head -3`) ends the watch.
        guard StandardOutput.write("device \(device.deviceID ?? "") registered; subscribed to \(options.user)'s private database as \(subscriptionID); waiting…\n")
        else { return }
        let deadline = Date().addingTimeInterval(seconds)
        var received = 0
        // One notification per long-poll answer (the web courier's form); the next poll acknowledges it.
        while received < count ?? .max, Date() < deadline {
            let wait = min(30, max(0, deadline.timeIntervalSinceNow))
            guard let polled = try await device.pollWebcourier(timeout: wait) else { continue }
            let latency = polled.latency(receivedAt: SystemClock().now()).map { " (\($0) ms after the change)" } ?? ""
            guard StandardOutput.write("push: \(polled.notification)\(latency)\n") else { return }
            received += 1
        }
    }
}

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

struct ClientShare: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "share", abstract: "Share one of your zones with other users.")
    @OptionGroup var options: ClientOptions
    @Argument(help: "Zone name.") var zone: String
    @Argument(help: "Users to share with.") var participants: [String]

    func run() async throws {
        try await clientRun {
            try await options.service().shareZone(RecordZoneID(zoneName: zone, ownerName: options.user), with: participants)
            print("shared \(zone) with \(participants.joined(separator: ", "))")
        }
    }
}

struct ClientExport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "export", abstract: "Print (or save) the server's whole state as JSON, without web auth tokens (needs the server admin token).")
    @OptionGroup var options: ClientOptions
    @Option(help: "Write to this file instead of printing.") var output: String?

    func run() async throws {
        try await clientRun {
            let data = try await options.adminService().exportServerState()
            if let output {
                do { try data.write(to: URL(fileURLWithPath: output)) } catch {
                    throw ClientFailure("Cannot write \(output): \((error as NSError).localizedDescription)")
                }
                print("wrote \(data.count) bytes to \(output)")
            } else {
                print(String(decoding: data, as: UTF8.self))
            }
        }
    }
}

struct ClientImport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Replace the server's whole state with an exported file (every change token issued before expires; users keep their web auth tokens; needs the server admin token).")
    @OptionGroup var options: ClientOptions
    @Argument(help: "A file written by `client export`.") var file: String

    func run() async throws {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: file)) } catch { throw ClientFailure("Cannot read \(file): \(error.localizedDescription)") }
        try await clientRun {
            try await options.adminService().importServerState(data)
            print("imported \(file)")
        }
    }
}

struct ClientReset: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset", abstract: "Empty the server (users stay; every change token issued before expires; needs the server admin token).")
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await clientRun {
            try await options.adminService().resetServer()
            print("the server is empty")
        }
    }
}
