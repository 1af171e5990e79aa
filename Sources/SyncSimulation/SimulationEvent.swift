import SyncCore
import SyncServer

/// Something that happened in a world, stamped with its time (virtual in a ``Simulation``).
public struct SimulationEvent: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// A device's sync engine did something.
        case sync(SyncEvent)
        /// The push layer did something (created, coalesced, held, pruned a notification…).
        case push(PushEvent)
        /// A notification reached a device (in-process: the push service's delivery, with its timing).
        case delivered(Delivery)
        /// A notification reached a device over the network: its long-poll of
        /// the server's webcourier URL answered with it.
        case pushReceived(CloudNotification)
        /// A person, a scenario or the writer did something on a device.
        case action(String)
        /// An action failed.
        case failed(action: String, error: CloudError)
        /// The device went offline or came back.
        case connectivity(online: Bool)
        /// The fault plan hit a server call (push faults are ``push(_:)`` events).
        case fault(InjectedFault)
    }

    /// 1, 2, 3… in the order events happened.
    public var number: Int
    public var time: Milliseconds
    /// The device involved, by name, when there is one.
    public var device: String?
    public var kind: Kind

    public var description: String {
        let who = device.map { "\($0): " } ?? ""
        switch kind {
        case .sync(let event): return who + SimulationEvent.describe(event)
        case .push(let event): return "push: \(event)"
        case .delivered(let delivery): return who + "push \(delivery)"
        case .pushReceived(let notification): return who + "push received \(notification)"
        case .action(let text): return who + text
        case .failed(let action, let error): return who + "\(action) failed: \(error.serverErrorCode) \(error.reason)"
        case .connectivity(let online): return who + (online ? "back online" : "offline")
        case .fault(let fault): return who + "injected \(fault.kind.rawValue) on \(fault.operation): \(fault.detail)"
        }
    }

    /// "1 change", "2 changes".
    private static func count(_ n: Int, _ noun: String, _ plural: String? = nil) -> String {
        "\(n) \(n == 1 ? noun : plural ?? noun + "s")"
    }

    static func describe(_ event: SyncEvent) -> String {
        switch event {
        case .fetchStarted(let scope, let token):
            return "fetch \(scope.rawValue) database from \(token.map { "token …\($0.shortForm)" } ?? "no token")"
        case .tokenReceived(let receipt):
            let place = receipt.zoneID.map { "zone \($0.zoneName)" } ?? "\(receipt.scope.rawValue) database"
            return "token …\(receipt.token.shortForm) for \(place) (batch \(receipt.batchIndex + 1), \(count(receipt.changeCount, "change")), moreComing=\(receipt.moreComing))"
        case .recordsApplied(_, let zoneID, let saved, let deleted, _):
            return "applied \(saved) saved, \(deleted) deleted in \(zoneID.zoneName)"
        case .zoneDeleted(_, let zoneID, let reason, let removed, _):
            return "dropped zone \(zoneID.zoneName) (\(reason.rawValue), \(count(removed, "record")))"
        case .zonePurged(_, let zoneID, let removed, _):
            return "zone \(zoneID.zoneName) purged: wiped \(count(removed, "record")), will not re-upload"
        case .zoneEncryptedDataReset(_, let zoneID, let queued):
            return "zone \(zoneID.zoneName) reset: re-uploading \(count(queued, "record"))"
        case .tokenExpired(let kind, let scope, let zoneID):
            return "\(kind) token expired (\(zoneID?.zoneName ?? scope.rawValue)): refetching from no token"
        case .vanishedRecordsRemoved(_, let zoneID, let ids):
            return "removed \(count(ids.count, "record")) no longer on the server from \(zoneID.zoneName)"
        case .fetchCompleted(let scope):
            return "fetch of \(scope.rawValue) database done"
        case .fetchInterrupted(let batches):
            return "fetch interrupted after \(count(batches, "batch", "batches"))"
        case .changeQueued(let change):
            return "queued \(change)"
        case .zonesSent(_, let saved, let deleted):
            return "zones sent: \(saved.count) saved, \(deleted.count) deleted"
        case .changesSent(_, let zoneID, let saved, let deleted):
            return "sent \(count(saved.count, "save")), \(count(deleted.count, "delete")) to \(zoneID.zoneName)"
        case .conflictMerged(_, let recordID, let tag, let keys):
            return "conflict on \(recordID.recordName): merged \(keys.joined(separator: ", ")) into server version \(tag ?? "?")"
        case .pendingChangeDropped(let change, let reason):
            return "dropped pending \(change): \(reason)"
        case .error(let report):
            return "error in \(report.operation): \(report.code.map { $0.serverErrorCode + " " } ?? "")\(report.message)"
        case .retryScheduled(let retry):
            return "\(retry.operation): \(retry.summary)"
        case .ambiguousCommitResolved(_, let recordID):
            return "resent \(recordID.recordName) after a lost answer: the server already had it (success)"
        case .notificationReceived(let id, let subscriptionID, let coalescedCount):
            let merged = coalescedCount > 1 ? " (\(coalescedCount) → 1)" : ""
            return "notification \(id) from \(subscriptionID)\(merged)"
        case .fetchScheduled(let reason, let ids):
            return "fetch scheduled (\(reason.rawValue)\(ids.isEmpty ? "" : ": " + ids.joined(separator: ", ")))"
        case .fetchRunStarted(let run):
            return "fetch run #\(run.id) started (\(run.reason.rawValue))"
        case .fetchRunFinished(let run):
            let outcome = run.succeeded == false ? "failed" : "done"
            return "fetch run #\(run.id) \(outcome): \(count(run.changesApplied, "change")) applied"
        }
    }
}
