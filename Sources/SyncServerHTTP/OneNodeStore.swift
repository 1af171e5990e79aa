import Foundation
import SyncCore
import SyncServer

/// A store only one node uses (a data folder, or memory): the engine step is
/// the order, the host's state is the whole journal (nothing to catch up
/// with), notifications are delivered here and now, and every poll of a
/// device is on this node.
protocol OneNodeStore: ServerStore {}

extension OneNodeStore {
    func isOwn(_ origin: JournaledCall.Origin) -> Bool { false }
    func checkpointDue(at position: Int64) -> Bool { false }
    func storeCheckpoint(through position: Int64, time: Milliseconds, file: ServerStateFile) {}
    func tail() async throws -> Int64 { 0 }
    func rows(after position: Int64) async throws -> [StoreRow] { [] }
    func checkpoint() async throws -> StoreCheckpoint? { nil }
    func serve(_ host: ServerHost) {}

    func deliver(dueAt time: Milliseconds, on host: ServerHost) async {
        host.deliverNow(timerAt: time)
    }

    func pollClaimant() -> String? { nil }
    func openPoll(device: String, poll: String, until: Milliseconds) async {}
    func endPoll(device: String, poll: String, until: Milliseconds) async {}
    func livePollsUntil(device: String, now: Milliseconds) async throws -> Milliseconds? { nil }
    func claimDeliveries(device: String, notificationIDs: [String], claimant: String, now: Milliseconds, lease: Milliseconds) async throws -> [String] {
        notificationIDs
    }
    func finishDeliveries(device: String, notificationIDs: [String], claimant: String, written: Bool) async {}
    func writtenDeliveries(device: String) async -> [String] { [] }
    func dropDeliveries(device: String, notificationIDs: [String]) async {}
}
