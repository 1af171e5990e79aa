import Foundation
import SyncCore
import SyncServerHost
import Testing

/// A long-poll's short page of a busy feed waits a moment to fill
/// (``ServerEventFeed/gatherWait(after:limit:gather:now:)``); a full page, a
/// watcher that is behind, or an empty feed is answered at once.
@Suite struct EventFeedGatherTests {
    func feed(times: [Milliseconds]) -> ServerEventFeed {
        let feed = ServerEventFeed(capacity: 8)
        for time in times { feed.record(ServerEvent(time: time, kind: .acknowledged(deviceID: "d", notificationIDs: []))) }
        return feed
    }

    @Test func aShortPageWaitsUntilTheGatherAfterItsFirstEvent() {
        let feed = feed(times: [1_000, 1_005])
        #expect(feed.gatherWait(after: 0, limit: 100, gather: .milliseconds(20), now: 1_008) == .milliseconds(12))
        // The first event of the page decides: after the first, the second is first.
        #expect(feed.gatherWait(after: 1, limit: 100, gather: .milliseconds(20), now: 1_008) == .milliseconds(17))
    }

    @Test func aFullPageAnOldEventOrNoEventIsAnsweredAtOnce() {
        let feed = feed(times: [1_000, 1_005, 1_006])
        #expect(feed.gatherWait(after: 0, limit: 3, gather: .milliseconds(20), now: 1_008) == .zero)
        #expect(feed.gatherWait(after: 0, limit: 100, gather: .milliseconds(20), now: 1_020) == .zero)
        #expect(feed.gatherWait(after: 3, limit: 100, gather: .milliseconds(20), now: 1_008) == .zero)
        #expect(ServerEventFeed(capacity: 0).gatherWait(after: 0, limit: 100, gather: .milliseconds(20)) == .zero)
    }

    @Test func aWatcherPastTheRingsOldestReadsFromTheOldestKept() {
        // Capacity 8: events 1–2 are overwritten by 9–10; the page starts at 3 (time 1_102).
        let feed = feed(times: (0..<10).map { 1_100 + Milliseconds($0) })
        #expect(feed.gatherWait(after: 0, limit: 100, gather: .milliseconds(20), now: 1_110) == .milliseconds(12))
    }
}
