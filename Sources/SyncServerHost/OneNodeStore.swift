import Foundation
import SyncCore
import SyncServer

/// A store only one node uses (a data folder, or memory): the engine step is
/// the order, the host's state is the whole journal (nothing to catch up
/// with), notifications are delivered here and now, and every poll of a
/// device is on this node.
package protocol OneNodeStore: ServerStore {}

extension OneNodeStore {
    package func isOwn(_ origin: JournaledCall.Origin) -> Bool { false }
    package func checkpointDue(at position: Int64) -> Bool { false }
    package func storeCheckpoint(through position: Int64, time: Milliseconds, file: ServerStateFile) {}
    package func tail() async throws -> Int64 { 0 }
    package func rows(after position: Int64) async throws -> [StoreRow] { [] }
    package func checkpoint() async throws -> StoreCheckpoint? { nil }
    package func serve(_ host: ServerHost) {}

    package func deliver(dueAt time: Milliseconds, on host: ServerHost) async {
        host.deliverNow(timerAt: time)
    }

    package func pollClaimant() -> String? { nil }
    package func openPoll(device: String, poll: String, until: Milliseconds) async {}
    package func endPoll(device: String, poll: String, until: Milliseconds) async {}
    package func livePollsUntil(device: String, now: Milliseconds) async throws -> Milliseconds? { nil }
    package func claimDeliveries(device: String, notificationIDs: [String], claimant: String, now: Milliseconds, lease: Milliseconds) async throws -> [String] {
        notificationIDs
    }
    package func finishDeliveries(device: String, notificationIDs: [String], claimant: String, written: Bool) async {}
    package func writtenDeliveries(device: String) async -> [String] { [] }
    package func dropDeliveries(device: String, notificationIDs: [String]) async {}
}
