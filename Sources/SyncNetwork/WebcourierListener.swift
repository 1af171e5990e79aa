import Foundation
import SyncCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A device's long-poll loop: polls its webcourier URL one notification per
/// answer, paced by ``LongPollPacing``, until told to stop. The poll, the
/// sleep and the clock are given, so the loop runs the same against a
/// server (``HTTPCloudService/pollWebcourier(timeout:)``, the wall clock)
/// and in tests (a virtual clock whose sleep moves it).
public struct WebcourierListener: Sendable {
    /// Seconds each long-poll waits.
    public var longPoll: Double
    public var pacing: LongPollPacing

    public init(longPoll: Double, pacing: LongPollPacing = LongPollPacing()) {
        self.longPoll = longPoll
        self.pacing = pacing
    }

    /// Polls while `shouldContinue()` says so; `handle` hears each
    /// notification, the first failure of an outage and the recovery. A
    /// failure of `unknownItem` (the server no longer knows the device) calls
    /// `reregister` before the pause.
    public func run(
        poll: @Sendable (Double) async throws -> PolledNotification?,
        reregister: @Sendable () async -> Void = {},
        now: @Sendable () -> Milliseconds,
        sleep: @Sendable (Milliseconds) async -> Void,
        shouldContinue: @Sendable () -> Bool,
        handle: @Sendable (WebcourierEvent) -> Void
    ) async {
        var pacing = self.pacing
        var failing = false
        while shouldContinue() {
            let timeout = pacing.timeout(longPoll: longPoll)
            let started = now()
            let pause: Milliseconds
            do {
                let polled = try await poll(timeout)
                let finished = now()
                guard shouldContinue() else { break }
                if failing {
                    failing = false
                    handle(.recovered)
                }
                if let polled { handle(.notification(polled, receivedAt: finished)) }
                pause = pacing.answered(withNotification: polled != nil, asked: timeout, elapsed: finished - started)
            } catch {
                guard shouldContinue() else { break }
                let cloud = error as? CloudError ?? CloudError(.networkFailure, String(describing: error))
                if !failing {
                    failing = true
                    handle(.failed(cloud))
                }
                if cloud.code == .unknownItem { await reregister() }
                pause = pacing.failed(retryAfter: cloud.retryAfter)
            }
            if pause > 0 { await sleep(pause) }
        }
    }
}

extension HTTPCloudService {
    /// A session for one device's long-polls: one connection to the server,
    /// so each poll goes out on the connection the previous one opened.
    public static func makeLongPollSession() -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 1
        configuration.timeoutIntervalForRequest = 330
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSession(configuration: configuration)
    }
}
