import Foundation
import Synchronization
import SyncTestSupport
import Testing
@testable import SyncServerHost
import SyncServerHTTP

/// Stopping a server while clients are still connecting.
@Suite struct ServerStopTests {
    /// A connection accepted as the server stops is never served. NIO traps
    /// when its unfinished response writer is released (this test crashed the
    /// whole test process before the writer was kept); and the connection
    /// must not be left open with no one to answer it.
    @Test func stoppingWhileClientsConnectCrashesNothingAndLeavesNoConnectionOpen() async throws {
        for _ in 0..<25 {
            let server = try await LiveServer(ServeOptions(dataDirectory: nil, coalescingWindow: 0, seed: 3))
            let raw = server.raw
            let request = RawHTTP.request(
                "GET", "/database/1/iCloud.com.example.SyncScope/development/private/zones/list",
                headers: [("Authorization", "Bearer \(server.aliceToken)")])
            let running = Atomic<Bool>(true)
            let held = Mutex<[Int32]>([])
            // Connects and sends a request again and again, holding every socket open.
            let connector = Thread {
                while running.load(ordering: .relaxed) {
                    guard let fd = try? raw.connectNow(timeout: 1) else { continue }
                    try? raw.writeNow(fd, request)
                    held.withLock { $0.append(fd) }
                }
            }
            connector.start()
            try await Task.sleep(for: .milliseconds(Int.random(in: 1...15)))
            server.stop()
            _ = await server.task.result
            running.store(false, ordering: .relaxed)
            let deadline = ContinuousClock.now + .seconds(10)
            while server.http.openConnections > 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
            #expect(server.http.openConnections == 0)
            for fd in held.withLock({ $0 }) { close(fd) }
        }
    }

    /// A server stopped and run again serves again: being stopped is not kept across runs.
    @Test func aServerRunAgainServesAgain() async throws {
        var options = ServeOptions(dataDirectory: nil, coalescingWindow: 0, seed: 3)
        options.port = 0
        options.quiet = true
        let host = try await ServerHost.start(options: options)
        let server = SyncScopeHTTPServer(host: host)
        let token = host.users.first { $0.name == "alice" }?.webAuthToken ?? ""
        for _ in 0..<2 {
            let bound = Mutex<Int?>(nil)
            let task = Task { try await server.run { port in bound.withLock { $0 = port } } }
            let deadline = ContinuousClock.now + .seconds(60)
            while bound.withLock({ $0 }) == nil, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
            let port = try #require(bound.withLock { $0 })
            let answer = try await RawHTTP(port: port).exchange(RawHTTP.request(
                "GET", "/database/1/iCloud.com.example.SyncScope/development/private/zones/list",
                headers: [("Authorization", "Bearer \(token)")]))
            #expect(answer.status == 200, "\(answer.text)")
            task.cancel()
            _ = await task.result
        }
    }
}
