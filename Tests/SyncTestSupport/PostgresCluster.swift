import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A throwaway PostgreSQL cluster for tests: `initdb` into a temporary
/// folder, `postgres` on a free loopback port as a child of the test process
/// (ready when `pg_isready` says so), `pg_ctl stop` and the folder removed at
/// the end (``withCluster(_:)`` stops it whether the body returns or throws).
///
/// Rules:
/// - PostgreSQL refuses to run as root. Run as root, the cluster belongs to
///   the system user `syncscope-pg` (made with `useradd` when missing) and
///   its programs run through `runuser`; otherwise as the current user.
/// - The programs are found in `SYNCSCOPE_PG_BINDIR`, then on `PATH`, then
///   in `pg_config --bindir`, then in `/usr/lib/postgresql/VERSION/bin`
///   (the newest; Debian puts them there, not on `PATH`).
/// - The cluster asks for a password (`scram-sha-256`) over TCP on
///   127.0.0.1 only; its superuser is ``user`` with ``password``.
/// - Durability is off (`fsync=off`) unless asked for: the cluster is thrown away.
public final class PostgresCluster: Sendable {
    public let port: Int
    /// The superuser's name and password.
    public let user = "syncscope"
    public let password: String
    public let folder: URL
    let binDirectory: URL
    /// The system user the server runs as, when the tests run as root.
    let systemUser: String?
    let server: Server

    static let systemUserName = "syncscope-pg"

    /// Whether the tests run in CI (`CI=true`), where PostgreSQL tests must never skip.
    public static var isCI: Bool { ProcessInfo.processInfo.environment["CI"]?.lowercased() == "true" }

    /// Whether `initdb` and `pg_ctl` can be found.
    public static var isAvailable: Bool { findBinDirectory() != nil }

    /// Why the PostgreSQL tests skip outside CI.
    public static let notInstalled =
        "PostgreSQL is not installed (no initdb and pg_ctl on PATH, in pg_config --bindir or in /usr/lib/postgresql/*/bin): run .ci/run, or apt-get install postgresql."

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    private init(port: Int, password: String, folder: URL, binDirectory: URL, systemUser: String?, server: Server) {
        self.server = server
        self.port = port
        self.password = password
        self.folder = folder
        self.binDirectory = binDirectory
        self.systemUser = systemUser
    }

    /// Starts a cluster, runs `body` with it, and stops it (and removes its
    /// folder) whether `body` returns or throws.
    public static func withCluster<T>(durable: Bool = false, _ body: (PostgresCluster) async throws -> T) async throws -> T {
        let cluster = try await start(durable: durable)
        do {
            let result = try await body(cluster)
            await cluster.stop()
            return result
        } catch {
            await cluster.stop()
            throw error
        }
    }

    /// A `postgres://` address of `database` in this cluster, as ``user``
    /// with ``password`` (or with `password` when given).
    public func url(database: String, user: String? = nil, password: String? = nil) -> String {
        "postgres://\(user ?? self.user):\(password ?? self.password)@127.0.0.1:\(port)/\(database)?sslmode=disable"
    }

    /// Makes a new, empty database.
    public func createDatabase(_ name: String) async throws {
        _ = try await psql("CREATE DATABASE \"\(name)\"", database: "postgres")
    }

    /// Runs SQL with `psql` as the superuser; returns what it printed (unaligned, tuples only).
    @discardableResult
    public func psql(_ sql: String, database: String) async throws -> String {
        let result = try await Self.run(
            binDirectory.appendingPathComponent("psql"),
            ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", String(port), "-U", user, "-d", database, "-c", sql],
            environment: ["PGPASSWORD": password], in: folder)
        guard result.status == 0 else { throw Failure("psql failed (\(result.status)) on \(sql): \(result.output)") }
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    // MARK: Starting and stopping

    /// Starts a cluster; `durable`: with PostgreSQL's default `fsync=on` (for
    /// measurements), else with durability off (a throwaway cluster for tests).
    public static func start(durable: Bool = false) async throws -> PostgresCluster {
        guard let binDirectory = findBinDirectory() else { throw Failure(notInstalled) }
        var systemUser: String?
        if geteuid() == 0 { systemUser = try await ensureSystemUser() }
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("syncscope-pg-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let password = UUID().uuidString
        do {
            let passwordFile = folder.appendingPathComponent("password")
            try Data(password.utf8).write(to: passwordFile)
            if let systemUser, let account = getpwnam(systemUser) {
                for path in [folder.path, passwordFile.path] where chown(path, account.pointee.pw_uid, account.pointee.pw_gid) != 0 {
                    throw Failure("Cannot give \(path) to \(systemUser): \(String(cString: strerror(errno))).")
                }
            }
            let data = folder.appendingPathComponent("data").path
            let initdb = try await run(
                binDirectory.appendingPathComponent("initdb"),
                ["-D", data, "-U", "syncscope", "--pwfile=\(passwordFile.path)", "-A", "scram-sha-256", "-E", "UTF8", "--locale=C", "--no-sync"],
                as: systemUser, in: folder)
            guard initdb.status == 0 else { throw Failure("initdb failed (\(initdb.status)): \(initdb.output)") }
            var lastFailure = ""
            // A free port can be taken between finding it and the server binding it: try a few.
            for attempt in 0..<5 {
                let port = try freePort()
                let log = folder.appendingPathComponent("server-\(attempt).log")
                // The server runs in the foreground as this process's child (not daemonized by
                // pg_ctl, whose exit Foundation would not see while the server holds its inherited
                // descriptors); it stops when it is told to (``stop()``).
                let server = try launch(
                    binDirectory.appendingPathComponent("postgres"),
                    ["-D", data, "-p", String(port), "-k", folder.path, "-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200"]
                        + (durable ? [] : ["-c", "fsync=off", "-c", "full_page_writes=off"]),
                    as: systemUser, log: log, in: folder)
                let deadline = ContinuousClock.now + .seconds(120)
                while true {
                    if let status = server.status {
                        let logText = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                        lastFailure = "postgres stopped at start (\(status)): \(logText.suffix(2000))"
                        break
                    }
                    let ready = try await run(
                        binDirectory.appendingPathComponent("pg_isready"), ["-q", "-h", "127.0.0.1", "-p", String(port), "-d", "postgres"],
                        in: folder)
                    if ready.status == 0 {
                        return PostgresCluster(
                            port: port, password: password, folder: folder, binDirectory: binDirectory, systemUser: systemUser, server: server)
                    }
                    guard ContinuousClock.now < deadline else {
                        server.kill(dataDirectory: URL(fileURLWithPath: data))
                        throw Failure("postgres did not accept connections within 120 s: \(((try? String(contentsOf: log, encoding: .utf8)) ?? "").suffix(2000))")
                    }
                    try await Task.sleep(for: .milliseconds(100))
                }
                guard lastFailure.contains("Address already in use") else { break }
            }
            throw Failure(lastFailure)
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
    }

    /// Stops the server at once (`pg_ctl stop -m immediate`), waits for it to
    /// end, and removes its folder.
    public func stop() async {
        _ = try? await Self.run(
            binDirectory.appendingPathComponent("pg_ctl"), ["-D", folder.appendingPathComponent("data").path, "-m", "immediate", "-w", "stop"],
            as: systemUser, in: folder)
        if await !server.waitForExit(seconds: 60) {
            server.kill(dataDirectory: folder.appendingPathComponent("data"))
            _ = await server.waitForExit(seconds: 10)
        }
        try? FileManager.default.removeItem(at: folder)
    }

    /// A long-running child process and how it ended.
    final class Server: @unchecked Sendable {
        private let process: Process
        private let lock = NSLock()
        private var exitStatus: Int32?
        private var waiters: [CheckedContinuation<Void, Never>] = []

        init(_ process: Process) { self.process = process }

        var status: Int32? { lock.withLock { exitStatus } }

        func exited(_ status: Int32) {
            let waiting = lock.withLock {
                exitStatus = status
                defer { waiters = [] }
                return waiters
            }
            for waiter in waiting { waiter.resume() }
        }

        /// Waits until the process has ended, or `seconds` have passed; returns whether it ended.
        func waitForExit(seconds: Double) async -> Bool {
            let ended: Void? = try? await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                        let done = self.lock.withLock {
                            if self.exitStatus != nil { return true }
                            self.waiters.append(continuation)
                            return false
                        }
                        if done { continuation.resume() }
                    }
                }
                group.addTask {
                    try await Task.sleep(for: .seconds(seconds))
                    throw CancellationError()
                }
                defer { group.cancelAll() }
                return try await group.next() ?? ()
            }
            if ended == nil {
                // Release the waiter the timed-out task left behind.
                let waiting = lock.withLock {
                    defer { waiters = [] }
                    return waiters
                }
                for waiter in waiting { waiter.resume() }
            }
            return status != nil
        }

        /// SIGKILL to the postmaster named in its pid file, then to the child itself.
        func kill(dataDirectory: URL? = nil) {
            if let dataDirectory, let text = try? String(contentsOf: dataDirectory.appendingPathComponent("postmaster.pid"), encoding: .utf8),
               let pid = Int32(text.split(separator: "\n").first ?? "")
            {
                sendSignal(pid, SIGKILL)
            }
            if status == nil { sendSignal(process.processIdentifier, SIGKILL) }
        }
    }

    /// Starts `program` (as `user` through `runuser` when given), its output to `log`.
    static func launch(_ program: URL, _ arguments: [String], as user: String?, log: URL, in directory: URL) throws -> Server {
        let process = Process()
        if let user {
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/runuser")
            process.arguments = ["-u", user, "--", program.path] + arguments
        } else {
            process.executableURL = program
            process.arguments = arguments
        }
        process.currentDirectoryURL = directory
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        let server = Server(process)
        process.terminationHandler = { process in
            try? handle.close()
            server.exited(process.terminationStatus)
        }
        do { try process.run() } catch {
            throw Failure("Cannot run \(program.path): \(error.localizedDescription)")
        }
        return server
    }

    // MARK: Finding and running programs

    static func findBinDirectory() -> URL? {
        let manager = FileManager.default
        func hasBoth(_ directory: String) -> Bool {
            ["initdb", "pg_ctl", "postgres", "pg_isready", "psql"].allSatisfy { manager.isExecutableFile(atPath: directory + "/" + $0) }
        }
        let environment = ProcessInfo.processInfo.environment
        if let explicit = environment["SYNCSCOPE_PG_BINDIR"], hasBoth(explicit) { return URL(fileURLWithPath: explicit) }
        for directory in (environment["PATH"] ?? "").split(separator: ":").map(String.init) where hasBoth(directory) {
            // A symbolic link (Debian's /usr/local/bin → /usr/lib/postgresql/N/bin) resolves to where its siblings are.
            let resolved = URL(fileURLWithPath: directory + "/initdb").resolvingSymlinksInPath().deletingLastPathComponent()
            return hasBoth(resolved.path) ? resolved : URL(fileURLWithPath: directory)
        }
        for directory in (environment["PATH"] ?? "").split(separator: ":").map(String.init) {
            let pgConfig = directory + "/pg_config"
            guard manager.isExecutableFile(atPath: pgConfig) else { continue }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: pgConfig)
            process.arguments = ["--bindir"]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
            guard (try? process.run()) != nil else { continue }
            let output = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let bindir = String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            if hasBoth(bindir) { return URL(fileURLWithPath: bindir) }
        }
        let versions = ((try? manager.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []).compactMap { Int($0) }.sorted(by: >)
        for version in versions where hasBoth("/usr/lib/postgresql/\(version)/bin") {
            return URL(fileURLWithPath: "/usr/lib/postgresql/\(version)/bin")
        }
        return nil
    }

    /// The system user PostgreSQL runs as under root, made when missing.
    static func ensureSystemUser() async throws -> String {
        let name = systemUserName
        if getpwnam(name) != nil { return name }
        let made = try await run(
            URL(fileURLWithPath: "/usr/sbin/useradd"),
            ["--system", "--user-group", "--no-create-home", "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin", name],
            in: URL(fileURLWithPath: "/"))
        // 9: made meanwhile by another test process.
        guard made.status == 0 || made.status == 9 || getpwnam(name) != nil else {
            throw Failure("PostgreSQL will not run as root, and the user \(name) to run it as cannot be made (useradd: \(made.output)).")
        }
        return name
    }

    /// Runs a program (as `user` through `runuser` when given) and waits for it without blocking a thread.
    static func run(
        _ program: URL, _ arguments: [String], as user: String? = nil, environment: [String: String] = [:], in directory: URL
    ) async throws -> (status: Int32, output: String) {
        let process = Process()
        if let user {
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/runuser")
            process.arguments = ["-u", user, "--", program.path] + arguments
        } else {
            process.executableURL = program
            process.arguments = arguments
        }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.currentDirectoryURL = directory
        // Output to a file, not a pipe: a chatty program can never block on a full pipe.
        let outputFile = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("syncscope-pg-run-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: outputFile) }
        let handle = try FileHandle(forWritingTo: outputFile)
        defer { try? handle.close() }
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { process in continuation.resume(returning: process.terminationStatus) }
            do { try process.run() } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: Failure("Cannot run \(program.path): \(error.localizedDescription)"))
            }
        }
        let output = (try? String(contentsOf: outputFile, encoding: .utf8)) ?? ""
        return (status, output.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// A loopback TCP port nothing listens on (the kernel's pick).
    public static func freePort() throws -> Int {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure("socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw Failure("bind: \(String(cString: strerror(errno)))") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw Failure("getsockname: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

private func sendSignal(_ pid: Int32, _ signal: Int32) { _ = kill(pid, signal) }
