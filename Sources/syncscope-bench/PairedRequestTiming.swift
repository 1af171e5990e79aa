import Foundation

/// Two servers timed against each other request by request, for a ratio
/// close to 1 that a noisy machine must not decide.
///
/// Timed one whole run after the other, such a ratio moved by up to ±15%
/// between runs of the same binary on a VM whose slow phases last seconds.
/// Here each round makes two fresh servers and sends each request to both in
/// turn, in an order that alternates by request and by round, so that a slow
/// moment falls on both alike; each request then counts with its best time
/// over the rounds, so that it falls on neither's figure.
enum PairedRequestTiming {
    /// Each server's seconds for all `requests`, each request at its best
    /// time over `rounds` rounds. `makeServers` gives a round's two fresh
    /// servers; `send` sends request `index` to one of them.
    static func bestTotals<Server>(
        rounds: Int, requests: Int, makeServers: () async throws -> (Server, Server),
        send: (Server, Int) async throws -> Void
    ) async throws -> (first: Double, second: Double) {
        var first = [Double](repeating: .infinity, count: requests)
        var second = first
        func timed(_ server: Server, _ index: Int) async throws -> Double {
            let start = ContinuousClock.now
            try await send(server, index)
            return ContinuousClock.now.seconds(since: start)
        }
        for round in 0..<rounds {
            let (a, b) = try await makeServers()
            for index in 0..<requests {
                if (index + round).isMultiple(of: 2) {
                    first[index] = min(first[index], try await timed(a, index))
                    second[index] = min(second[index], try await timed(b, index))
                } else {
                    second[index] = min(second[index], try await timed(b, index))
                    first[index] = min(first[index], try await timed(a, index))
                }
            }
        }
        return (first.reduce(0, +), second.reduce(0, +))
    }
}
