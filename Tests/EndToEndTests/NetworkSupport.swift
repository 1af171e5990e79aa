import Foundation
import Synchronization
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A `syncscope serve` process on a free loopback port, with a data folder
/// of its own, and short ways to call its API.
final class ServerProcess: Sendable {
    let process: Process
    let dataDirectory: URL
    let port: Int
    let output: TextBuffer
    let tokens: [String: String]
    /// The server admin token (admin.json).
    let adminToken: String

    static let container = "iCloud.com.example.NetworkTests"

    /// Starts the server and waits (bounded) until it prints where it listens.
    /// Blocks its thread: in async code use ``start(data:arguments:port:)``.
    convenience init(data: URL? = nil, arguments: [String] = [], port: Int = 0) throws {
        let (process, output, directory) = try Self.launch(data: data, arguments: arguments, port: port)
        var found: Int?
        for _ in 0..<1200 {
            found = Self.listeningPort(output.text)
            if found != nil || !process.isRunning { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        try self.init(process: process, output: output, dataDirectory: directory, port: found)
    }

    /// When set, a server started without a data folder runs on this shared
    /// PostgreSQL store instead (`--store`): runs a suite's tests against it.
    @TaskLocal static var postgresStore: String?

    /// Starts the server and waits (bounded, without holding a thread) until it prints where it listens.
    static func start(data: URL? = nil, arguments: [String] = [], port: Int = 0) async throws -> ServerProcess {
        if data == nil, let store = postgresStore { return try await start(store: store, arguments: arguments, port: port) }
        let (process, output, directory) = try launch(data: data, arguments: arguments, port: port)
        var found: Int?
        for _ in 0..<1200 {
            found = listeningPort(output.text)
            if found != nil || !process.isRunning { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        return try ServerProcess(process: process, output: output, dataDirectory: directory, port: found)
    }

    /// Starts a node on a shared PostgreSQL journal (`--store URL`); its users' tokens and the admin token come from its banner.
    static func start(store: String, arguments: [String] = [], port: Int = 0) async throws -> ServerProcess {
        let (process, output, directory) = try launch(data: nil, store: store, arguments: arguments, port: port)
        var found: Int?
        for _ in 0..<1200 {
            found = listeningPort(output.text)
            if found != nil || !process.isRunning { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        // The banner is written at once, whole; wait for its last line.
        for _ in 0..<200 where found != nil && !output.text.contains("try: curl") { try await Task.sleep(for: .milliseconds(25)) }
        return try ServerProcess(process: process, output: output, dataDirectory: directory, port: found)
    }

    private static func launch(data: URL?, store: String? = nil, arguments: [String], port: Int) throws -> (Process, TextBuffer, URL) {
        let dataDirectory = data ?? FileManager.default.temporaryDirectory.appendingPathComponent("syncscope-test-\(UUID().uuidString)")
        let output = TextBuffer()
        let process = Process()
        process.executableURL = BinaryRunner.binaryURL
        process.arguments = ["serve", "--port", String(port)] + (store.map { ["--store", $0] } ?? ["--data", dataDirectory.path]) + ["--seed", "7"] + arguments
        if store != nil { try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true) }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            // Empty: the end of the output (every writer has closed the pipe).
            if data.isEmpty {
                handle.readabilityHandler = nil
                output.finish()
            } else {
                output.append(data)
            }
        }
        try process.run()
        return (process, output, dataDirectory)
    }

    private static func listeningPort(_ text: String) -> Int? {
        guard let range = text.range(of: #"listening on http://127\.0\.0\.1:(\d+)"#, options: .regularExpression) else { return nil }
        return Int(text[range].split(separator: ":").last ?? "")
    }

    private init(process: Process, output: TextBuffer, dataDirectory: URL, port: Int?) throws {
        self.process = process
        self.output = output
        self.dataDirectory = dataDirectory
        guard let port else {
            process.terminate()
            throw TestFailure("the server did not start: \(output.text)")
        }
        self.port = port
        if !FileManager.default.fileExists(atPath: dataDirectory.appendingPathComponent("users.json").path) {
            // A node on a shared store has no data folder: the banner names the users and the admin token.
            let banner = Self.bannerTokens(output.text)
            tokens = banner.0
            adminToken = banner.1
            return
        }
        // The banner comes after users.json and admin.json are written.
        let users = try JSONSerialization.jsonObject(with: Data(contentsOf: dataDirectory.appendingPathComponent("users.json"))) as? [String: Any]
        var tokens: [String: String] = [:]
        for user in users?["users"] as? [[String: Any]] ?? [] {
            if let name = user["name"] as? String, let token = user["webAuthToken"] as? String { tokens[name] = token }
        }
        self.tokens = tokens
        let admin = try JSONSerialization.jsonObject(with: Data(contentsOf: dataDirectory.appendingPathComponent("admin.json"))) as? [String: Any]
        adminToken = admin?["adminToken"] as? String ?? ""
    }

    var log: String { output.text }

    /// The users' web auth tokens and the admin token, as the banner lists them.
    static func bannerTokens(_ banner: String) -> ([String: String], String) {
        var tokens: [String: String] = [:]
        var admin = ""
        var section = ""
        for line in banner.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("users and their web auth tokens") { section = "users"; continue }
            if line.hasPrefix("server admin token") { section = "admin"; continue }
            guard line.hasPrefix("  ") else { section = ""; continue }
            let words = line.split(separator: " ")
            if section == "users", words.count == 2 { tokens[String(words[0])] = String(words[1]) }
            if section == "admin", words.count == 1 { admin = String(words[0]) }
        }
        return (tokens, admin)
    }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// `kill -9`: no chance to write anything more.
    func kill9() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        output.waitForEnd(seconds: 10)
    }

    /// Stops the server as Ctrl-C does and waits until it has exited and
    /// its last line has been read (a line written just before the exit
    /// can reach the pipe after `waitUntilExit` returns).
    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        output.waitForEnd(seconds: 10)
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    func removeData() { try? FileManager.default.removeItem(at: dataDirectory) }

    // MARK: Calls

    struct Answer {
        var status: Int
        var json: [String: Any]
        var data: Data

        var errorCode: String? { json["serverErrorCode"] as? String }
        var reason: String { json["reason"] as? String ?? "" }
        subscript(key: String) -> Any? { json[key] }
        var list: (String) -> [[String: Any]] { { json[$0] as? [[String: Any]] ?? [] } }
    }

    func db(_ database: String, _ operation: String) -> String {
        "/database/1/\(Self.container)/development/\(database)/\(operation)"
    }

    func admin(_ operation: String) -> String { "/admin/1/\(Self.container)/development/\(operation)" }

    func device(_ operation: String) -> String { "/device/1/\(Self.container)/development/\(operation)" }

    /// POSTs (or GETs, with no body) and returns the status and JSON object.
    @discardableResult
    func call(
        _ path: String, _ body: Any? = nil, user: String? = "alice", device: String? = nil, method: String? = nil, rawBody: Data? = nil,
        token: String? = nil, timeout: Double = 30, contentType: String? = "application/json"
    ) async throws -> Answer {
        var request = URLRequest(url: path.hasPrefix("http") ? URL(string: path)! : URL(string: baseURL.absoluteString + path)!)
        request.timeoutInterval = timeout
        request.httpMethod = method ?? (body == nil && rawBody == nil ? "GET" : "POST")
        if let token = token ?? user.flatMap({ tokens[$0] }) { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let device { request.setValue(device, forHTTPHeaderField: "X-SyncScope-Device") }
        if let rawBody {
            request.httpBody = rawBody
        } else if let body {
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
        }
        if request.httpBody != nil, let contentType { request.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        return Answer(status: status, json: json, data: data)
    }

    // MARK: Shortcuts

    func zoneID(_ name: String, owner: String? = nil) -> [String: Any] {
        owner.map { ["zoneName": name, "ownerRecordName": $0] } ?? ["zoneName": name]
    }

    func createZone(_ name: String, user: String = "alice") async throws {
        let answer = try await call(db("private", "zones/modify"), ["operations": [["operationType": "create", "zone": ["zoneID": zoneID(name)]]]], user: user)
        #expect(answer.status == 200, "\(answer.json)")
    }

    /// Saves records (forceReplace) and returns the answer.
    @discardableResult
    func save(
        _ names: [String], in zone: String, fields: [String: Any] = ["title": ["value": "hello"]], user: String = "alice",
        device: String? = nil, database: String = "private", owner: String? = nil, timeout: Double = 30
    ) async throws -> Answer {
        let operations = names.map { ["operationType": "forceReplace", "record": ["recordName": $0, "recordType": "Note", "fields": fields]] }
        return try await call(
            db(database, "records/modify"), ["zoneID": zoneID(zone, owner: owner), "operations": operations], user: user, device: device,
            timeout: timeout)
    }

    /// `changes/zone` for one zone: (record names, deleted names, token, moreComing), or the zone's error.
    func zoneChanges(_ zone: String, since token: String? = nil, limit: Int? = nil, user: String = "alice") async throws -> (
        names: [String], deleted: [String], token: String, more: Bool, error: [String: Any]?, status: Int
    ) {
        var entry: [String: Any] = ["zoneID": zoneID(zone)]
        if let token { entry["syncToken"] = token }
        if let limit { entry["resultsLimit"] = limit }
        let answer = try await call(db("private", "changes/zone"), ["zones": [entry]], user: user)
        let first = answer.list("zones").first ?? [:]
        let records = first["records"] as? [[String: Any]] ?? []
        return (
            records.filter { $0["deleted"] as? Bool != true }.compactMap { $0["recordName"] as? String },
            records.filter { $0["deleted"] as? Bool == true }.compactMap { $0["recordName"] as? String },
            first["syncToken"] as? String ?? "", first["moreComing"] as? Bool ?? false,
            first["serverErrorCode"] == nil ? nil : first, answer.status
        )
    }

    /// A header of the last answer to a raw request, for checks on CORS and `Allow`.
    func headers(_ path: String, method: String = "GET") async throws -> (status: Int, headers: [String: String]) {
        var request = URLRequest(url: URL(string: baseURL.absoluteString + path)!)
        request.httpMethod = method
        let (_, response) = try await URLSession.shared.data(for: request)
        let http = response as? HTTPURLResponse
        var headers: [String: String] = [:]
        for (key, value) in http?.allHeaderFields ?? [:] { headers[String(describing: key).lowercased()] = String(describing: value) }
        return (http?.statusCode ?? 0, headers)
    }

    /// `tokens/create` + `tokens/register`: the device's ID and webcourier URL.
    func registerDevice(user: String = "alice") async throws -> (id: String, url: String) {
        let created = try await call(device("tokens/create"), ["apnsEnvironment": "development"], user: user)
        let id = try #require(created["apnsToken"] as? String)
        let registered = try await call(device("tokens/register"), ["apnsEnvironment": "development", "apnsToken": id], user: user)
        #expect(registered.status == 200, "\(registered.json)")
        return (id, try #require(created["webcourierURL"] as? String))
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Text a child process writes, collected as it comes.
final class TextBuffer: @unchecked Sendable {
    // Guarded by `condition`.
    private var storage = ""
    private var ended = false
    private let condition = NSCondition()

    func append(_ data: Data) {
        condition.lock()
        storage += String(decoding: data, as: UTF8.self)
        condition.unlock()
    }

    /// The writer closed its end: nothing more comes.
    func finish() {
        condition.lock()
        ended = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until ``finish()`` (or the deadline).
    func waitForEnd(seconds: Double) {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        while !ended, condition.wait(until: deadline) {}
        condition.unlock()
    }

    var text: String {
        condition.lock()
        defer { condition.unlock() }
        return storage
    }
}
