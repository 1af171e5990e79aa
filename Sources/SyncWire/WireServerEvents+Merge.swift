import Foundation

extension WireServerEvents {
    /// Several nodes' feeds as one, in commit order: by the journal position
    /// each event's node had applied, then by time; each node's own events
    /// keep their order.
    public static func merge(_ feeds: [[WireServerEvent]]) -> [WireServerEvent] {
        guard feeds.count > 1 else { return feeds.first ?? [] }
        var heads = feeds.map { _ in 0 }
        var merged: [WireServerEvent] = []
        merged.reserveCapacity(feeds.reduce(0) { $0 + $1.count })
        while true {
            var best: Int?
            for (index, feed) in feeds.enumerated() where heads[index] < feed.count {
                let event = feed[heads[index]]
                guard let chosen = best else {
                    best = index
                    continue
                }
                let other = feeds[chosen][heads[chosen]]
                if (event.position, event.time) < (other.position, other.time) { best = index }
            }
            guard let index = best else { return merged }
            merged.append(feeds[index][heads[index]])
            heads[index] += 1
        }
    }
}
