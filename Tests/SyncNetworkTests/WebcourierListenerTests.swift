import Foundation
import SyncCore
import SyncNetwork
import Synchronization
import Testing

/// The long-poll loop on a virtual clock: its sleep moves the clock, and a
/// scripted poll stands for the server, so these count what the loop would
/// send over a window of time without waiting for any of it.
@Suite struct WebcourierListenerTests {
    /// Scripted polls: what each answers, how long it takes (virtual), and what was asked.
    final class ScriptedCourier: Sendable {
        enum Answer: Sendable {
            case notification(String)
            case nothing(afterMilliseconds: Milliseconds)
            /// Waits as asked (an honest server with nothing waiting).
            case nothingAfterTheWait
            case failure(CloudError)
        }
        let clock = VirtualClock(start: 1_000_000)
        private let state: Mutex<(script: [Answer], fallback: Answer, asked: [Double], sleeps: [Milliseconds], events: [WebcourierEvent], reregistered: Int)>

        init(_ script: [Answer], then fallback: Answer) {
            state = Mutex((script, fallback, [], [], [], 0))
        }

        var asked: [Double] { state.withLock { $0.asked } }
        var sleeps: [Milliseconds] { state.withLock { $0.sleeps } }
        var events: [WebcourierEvent] { state.withLock { $0.events } }
        var reregistered: Int { state.withLock { $0.reregistered } }

        func poll(_ timeout: Double) throws -> PolledNotification? {
            let answer = state.withLock { state -> Answer in
                state.asked.append(timeout)
                return state.script.isEmpty ? state.fallback : state.script.removeFirst()
            }
            switch answer {
            case .notification(let id):
                return PolledNotification(
                    notification: .database(DatabaseNotification(notificationID: id, subscriptionID: "db", containerIdentifier: "c", databaseScope: .private)),
                    queuedAt: clock.now() - 40)
            case .nothing(let milliseconds):
                clock.advance(by: milliseconds)
                return nil
            case .nothingAfterTheWait:
                clock.advance(by: Milliseconds(timeout * 1000))
                return nil
            case .failure(let error):
                throw error
            }
        }

        /// Runs the listener (long-polls of 25 s) for `window` milliseconds of virtual time.
        func run(for window: Milliseconds) async {
            let end = clock.now() + window
            await WebcourierListener(longPoll: 25).run(
                poll: { [self] timeout in try poll(timeout) },
                reregister: { [self] in state.withLock { $0.reregistered += 1 } },
                now: { [clock] in clock.now() },
                sleep: { [self] milliseconds in
                    state.withLock { $0.sleeps.append(milliseconds) }
                    clock.advance(by: milliseconds)
                },
                shouldContinue: { [clock] in clock.now() < end },
                handle: { [self] event in state.withLock { $0.events.append(event) } })
        }
    }

    static let refused = CloudError(.networkFailure, "Failed to connect to 127.0.0.1 port 8400: Couldn't connect to server")

    @Test func whileTheServerIsAwayTheLoopBacksOffInsteadOfSpinning() async {
        let courier = ScriptedCourier([], then: .failure(Self.refused))
        await courier.run(for: 30_000)
        // 0.25, 0.5, 1, 2, 4 s, then every 5 s: about ten attempts in 30 s, not thousands.
        #expect(courier.asked.count <= 12, "\(courier.asked.count) polls in 30 s")
        #expect(courier.asked.count >= 6)
        #expect(courier.sleeps.prefix(6) == [250, 500, 1_000, 2_000, 4_000, 5_000])
        #expect(courier.events == [.failed(Self.refused)], "an outage is reported once")
    }

    @Test func aServerThatAnswersEmptyAtOnceIsNotPolledInATightLoop() async {
        // A proxy (or a server) that does not hold the poll: empty answers in no time.
        let courier = ScriptedCourier([], then: .nothing(afterMilliseconds: 0))
        await courier.run(for: 30_000)
        #expect(courier.asked.count <= 12, "\(courier.asked.count) polls in 30 s")
        #expect(courier.events.isEmpty)
    }

    @Test func anHonestLongPollIsFollowedByTheNextAtOnce() async {
        let courier = ScriptedCourier([], then: .nothingAfterTheWait)
        await courier.run(for: 100_000)
        // The first only opens the connection; then 25-s polls back to back.
        #expect(courier.asked.first == 0)
        #expect(courier.asked.dropFirst().allSatisfy { $0 == 25 })
        #expect(courier.asked.count == 5)
        #expect(courier.sleeps.isEmpty)
    }

    @Test func afterAFailureTheFirstPollOnlyOpensTheConnectionAndRecoveryIsReportedOnce() async {
        let courier = ScriptedCourier(
            [.nothingAfterTheWait, .nothingAfterTheWait, .failure(Self.refused), .failure(Self.refused), .nothing(afterMilliseconds: 3),
             .notification("N1")],
            then: .nothingAfterTheWait)
        await courier.run(for: 80_000)
        // A quick poll first (on a new connection FoundationNetworking busy-waits for a long answer), then long ones.
        #expect(Array(courier.asked.prefix(7)) == [0, 25, 25, 0, 0, 25, 25])
        #expect(courier.sleeps == [250, 500], "a pause after each failure, none after answers")
        guard courier.events.count == 3 else {
            Issue.record("\(courier.events)")
            return
        }
        #expect(courier.events[0] == .failed(Self.refused))
        #expect(courier.events[1] == .recovered)
        guard case .notification(let polled, let receivedAt) = courier.events[2] else {
            Issue.record("\(courier.events[2])")
            return
        }
        #expect(polled.notification.notificationID == "N1")
        #expect(polled.latency(receivedAt: receivedAt) == 40, "the server's queuedAt gives the real latency")
    }

    @Test func waitingNotificationsComeOnePerPollWithoutAPause() async {
        let courier = ScriptedCourier([.notification("N1"), .notification("N2"), .notification("N3")], then: .nothingAfterTheWait)
        await courier.run(for: 30_000)
        let ids = courier.events.compactMap { event -> String? in
            if case .notification(let polled, _) = event { return polled.notification.notificationID }
            return nil
        }
        #expect(ids == ["N1", "N2", "N3"])
        #expect(courier.sleeps.isEmpty)
    }

    @Test func theServersRetryAfterIsWaitedAndAnUnknownDeviceRegistersAgain() async {
        var busy = CloudError(.serviceUnavailable, "Device 'x' already has 1 long-poll open")
        busy.retryAfter = 3
        let courier = ScriptedCourier(
            [.failure(busy), .failure(CloudError(.unknownItem, "You have no push channel 'x' in this server"))], then: .nothingAfterTheWait)
        await courier.run(for: 60_000)
        #expect(courier.sleeps.first == 3_000)
        #expect(courier.reregistered == 1)
    }

    @Test func thePacingAloneDoublesUpToItsCeilingAndResetsOnAnAnswer() {
        var pacing = LongPollPacing(minimumPause: 100, maximumPause: 800)
        #expect(pacing.timeout(longPoll: 25) == 0)
        #expect((0..<6).map { _ in pacing.failed() } == [100, 200, 400, 800, 800, 800])
        #expect(pacing.answered(withNotification: false, asked: 0, elapsed: 1) == 0, "the quick poll after a failure")
        #expect(pacing.timeout(longPoll: 25) == 25)
        #expect(pacing.answered(withNotification: false, asked: 25, elapsed: 25_000) == 0)
        #expect(pacing.failed() == 100, "an answer resets the back-off")
    }
}

@Suite struct WebcourierAnswerTests {
    @Test func anEmptyBodyIsATimeUpAndAnythingButApplesPushFormIsRefusedWithAReason() throws {
        #expect(try HTTPCloudService.polledNotification(from: Data()) == nil)
        #expect(try HTTPCloudService.polledNotification(from: Data(" \r\n".utf8)) == nil)
        let apple = #"{"aps":{"content-available":1},"ck":{"cid":"c","nid":"N1","met":{"sid":"db","dbs":2}},"syncscope":{"notificationType":"database","coalescedCount":2,"isPruned":false,"queuedAt":5}}"#
        let read = try HTTPCloudService.polledNotification(from: Data(apple.utf8))
        let polled = try #require(read)
        #expect(polled.notification.notificationID == "N1" && polled.notification.coalescedCount == 2)
        #expect(polled.queuedAt == 5 && polled.latency(receivedAt: 45) == 40 && polled.latency(receivedAt: 1) == 0)
        do {
            _ = try HTTPCloudService.polledNotification(from: Data(#"{"notifications":[]}"#.utf8))
            Issue.record("read the old list form as a notification")
        } catch {
            #expect(error.reason.contains("one push notification in Apple's form"))
        }
    }
}
