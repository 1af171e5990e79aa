import ArgumentParser
import Foundation
import Synchronization
import SyncCore
import SyncNetwork
import SyncServerHTTP

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
