import Foundation
import Logging
import Synchronization
import SyncCore
import SyncWire
import SyncNetwork
import SyncPostgres
import SyncServerHTTP

/// One `syncscope serve --store` node, a child process of the bench.
final class NodeProcess: Sendable {
    let process: Process
    let port: Int
    let token: String
    let banner: String
    private let watch: Watch

    /// What the process printed, and whether (and who waits until) it exited.
    final class Watch: Sendable {
        let output = Mutex("")
        let exited = Mutex<(done: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))
    }

    var pid: Int32 { process.processIdentifier }

    private init(process: Process, port: Int, token: String, banner: String, watch: Watch) {
        self.process = process
        self.port = port
        self.token = token
        self.banner = banner
        self.watch = watch
    }

    /// The `syncscope` built next to this executable (`swift build -c release` builds both): the
    /// bench runs the serve command of the same build.
    static func syncscopeExecutable() throws -> URL {
        let link = "/proc/self/exe"
        let bench = (try? FileManager.default.destinationOfSymbolicLink(atPath: link)).map(URL.init(fileURLWithPath:))
            ?? Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        let syncscope = bench.deletingLastPathComponent().appendingPathComponent("syncscope")
        guard FileManager.default.isExecutableFile(atPath: syncscope.path) else {
            throw BenchmarkError("--nodes runs `syncscope serve` nodes, and there is no syncscope beside this program (\(syncscope.path)); build both first: swift build -c release")
        }
        return syncscope
    }

    /// Starts a node on a free loopback port and waits (bounded) for its banner.
    static func start(store: PostgresStoreURL) async throws -> NodeProcess {
        let process = Process()
        process.executableURL = try syncscopeExecutable()
        process.arguments = ["serve", "--store", store.description, "--port", "0", "--user", "bench", "--coalescing-window", "0", "--quiet"]
        var environment = ProcessInfo.processInfo.environment
        environment["SYNCSCOPE_STORE"] = nil
        if let password = store.password { environment["PGPASSWORD"] = password }
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        let watch = Watch()
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty {
                handle.readabilityHandler = nil
                return
            }
            watch.output.withLock { $0 += String(decoding: data, as: UTF8.self) }
        }
        process.terminationHandler = { _ in
            let waiter = watch.exited.withLock { state -> CheckedContinuation<Void, Never>? in
                state.done = true
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
        try process.run()
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            let text = watch.output.withLock { $0 }
            if text.contains("try: curl"), let port = listeningPort(text), let token = benchToken(text) {
                return NodeProcess(process: process, port: port, token: token, banner: text, watch: watch)
            }
            if watch.exited.withLock({ $0.done }) { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        throw BenchmarkError("a node did not start: \(watch.output.withLock { $0 })")
    }

    private static func listeningPort(_ text: String) -> Int? {
        guard let range = text.range(of: #"listening on http://127\.0\.0\.1:(\d+)"#, options: .regularExpression) else { return nil }
        return Int(text[range].split(separator: ":").last ?? "")
    }

    private static func benchToken(_ text: String) -> String? {
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ")
            if line.hasPrefix("  "), words.count == 2, words[0] == "bench" { return String(words[1]) }
        }
        return nil
    }

    /// Stops the node (SIGINT: a clean stop) and returns its journal counters from the stop line.
    func stop() async -> String {
        kill(pid, SIGINT)
        let stopped = await withTaskGroup(of: Bool.self) { group in
            group.addTask { [self] in
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let done = watch.exited.withLock { state -> Bool in
                        if state.done { return true }
                        state.waiter = continuation
                        return false
                    }
                    if done { continuation.resume() }
                }
                return true
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(20))
                return false
            }
            let first = await group.next() ?? false
            if !first {
                kill(pid, SIGKILL)
                _ = await group.next()
            } else {
                group.cancelAll()
            }
            return first
        }
        let text = watch.output.withLock { $0 }
        guard stopped else { return "did not stop within 20 s (killed)" }
        guard let range = text.range(of: "this node: ") else { return "no counters in its stop line" }
        return String(text[range.upperBound...].prefix { $0 != "\n" })
    }
}
