import Foundation
import Testing

/// `client watch` subscribes for itself and must not leave that subscription
/// behind: a leftover one pushes every later change to the user's other devices twice.
@Suite struct ClientWatchCleanupTests {
    private func watchSubscriptions(_ server: ServerProcess) async throws -> [String] {
        let answer = try await server.call(server.db("private", "subscriptions/list"))
        #expect(answer.status == 200)
        let subscriptions = answer.json["subscriptions"] as? [[String: Any]] ?? []
        return subscriptions.compactMap { $0["subscriptionID"] as? String }.filter { $0.hasPrefix("syncscope-watch") }
    }

    private func startWatch(_ server: ServerProcess, _ extra: [String]) throws -> (Process, TextBuffer) {
        let watch = Process()
        watch.executableURL = BinaryRunner.binaryURL
        watch.arguments = ["client", "watch"] + extra + ["--server", server.baseURL.absoluteString, "--data", server.dataDirectory.path, "--container", ServerProcess.container]
        let text = TextBuffer()
        let pipe = Pipe()
        watch.standardOutput = pipe
        watch.standardError = pipe
        watch.standardInput = FileHandle.nullDevice
        pipe.fileHandleForReading.readabilityHandler = { text.append($0.availableData) }
        try watch.run()
        return (watch, text)
    }

    /// Polls `condition` until it holds or 30 s pass, without holding a thread.
    private func eventually(_ condition: () async throws -> Bool) async rethrows -> Bool {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return try await condition()
    }

    @Test func aWatchThatEndsDeletesItsSubscription() async throws {
        let server = try ServerProcess(arguments: ["--coalescing-window", "0"])
        defer { server.stop(); server.removeData() }
        try await server.createZone("Notes")
        let (watch, text) = try startWatch(server, ["--count", "1", "--seconds", "60"])
        defer { if watch.isRunning { watch.terminate() } }
        #expect(await eventually { text.text.contains("waiting…") }, "\(text.text)")
        #expect(try await watchSubscriptions(server).count == 1, "while it watches, the watch has its subscription")

        #expect(try await server.save(["n1"], in: "Notes").status == 200)
        #expect(await eventually { !watch.isRunning }, "one push and --count 1 end the watch: \(text.text)")
        #expect(watch.terminationStatus == 0)
        #expect(text.text.contains("push: database notification"))
        #expect(try await watchSubscriptions(server).isEmpty, "the ended watch left its subscription behind")
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func aWatchStoppedBySignalDeletesItsSubscription(_ signal: Int32) async throws {
        let server = try ServerProcess()
        defer { server.stop(); server.removeData() }
        let (watch, text) = try startWatch(server, ["--seconds", "120"])
        defer { if watch.isRunning { watch.terminate() } }
        #expect(await eventually { text.text.contains("waiting…") }, "\(text.text)")
        #expect(try await watchSubscriptions(server).count == 1)

        kill(watch.processIdentifier, signal)
        #expect(await eventually { !watch.isRunning }, "the watch ends on signal \(signal)")
        #expect(watch.terminationStatus == 128 + signal)
        #expect(try await watchSubscriptions(server).isEmpty, "signal \(signal) left the watch's subscription behind")
    }
}
