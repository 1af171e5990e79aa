import SyncCore
import SyncClient

/// Something that happened in a world, stamped with its time (virtual in a `Simulation`).
public struct WorldEvent: Sendable, Hashable, CustomStringConvertible {
    /// Indirect: an event is copied many times on its way to a pane (the
    /// observer, the world's log, each snapshot's latest events), and a copy
    /// of a boxed kind is one retain, not one per string and token inside.
    public indirect enum Kind: Sendable, Hashable {
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
        case .sync(let event): return who + WorldEvent.describe(event)
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

// MARK: - Readable text (the inspector's event log)

extension WorldEvent {
    /// The event as a person reads it in the inspector's log: devices by
    /// name (`deviceName` turns a device ID into one), notifications by what
    /// they are about and a four-character tag instead of their UUID, and
    /// times as durations ("arrives in 50ms") instead of clock readings in
    /// milliseconds. ``description`` stays as it is: transcripts use it.
    public func readableText(deviceName: (String) -> String = { $0 }) -> String {
        let who = device.map { "\($0): " } ?? ""
        switch kind {
        case .push(let event):
            return "push: " + Self.readable(event, deviceName: deviceName)
        case .delivered(let delivery):
            return who + "push delivered after \(Self.duration(delivery.latency)): \(Self.about(delivery.notification))"
        case .pushReceived(let notification):
            return who + "push received: \(Self.about(notification))"
        case .sync(.notificationReceived(let id, let subscriptionID, let coalescedCount)):
            let merged = coalescedCount > 1 ? " (\(coalescedCount) → 1)" : ""
            return who + "notification \(Self.tag(id)) from \(subscriptionID)\(merged)"
        case .sync(.fetchScheduled(let reason, let ids)):
            return who + "fetch scheduled (\(reason.rawValue)\(ids.isEmpty ? "" : ": " + ids.map(Self.tag).joined(separator: ", ")))"
        default:
            return description
        }
    }

    /// "zone Notes (sub-notes) #3f2a", "×3" when it stands for several.
    public static func about(_ notification: CloudNotification) -> String {
        let what = switch notification {
        case .database(let n): "\(n.databaseScope.rawValue) database"
        case .recordZone(let n): "zone \(n.recordZoneID.zoneName)"
        case .query(let n): "\(n.queryNotificationReason.rawValue) \(n.recordID.recordName)"
        }
        let count = notification.coalescedCount > 1 ? " ×\(notification.coalescedCount)" : ""
        let pruned = notification.isPruned ? " (pruned)" : ""
        return "\(what) via \(notification.subscriptionID) \(tag(notification.notificationID))\(count)\(pruned)"
    }

    /// "#3f2a": the first four characters of a notification's ID (a UUID), to
    /// tell notifications apart in the log without printing the whole ID.
    public static func tag(_ id: String) -> String {
        "#" + id.filter { $0 != "-" }.prefix(4).lowercased()
    }

    /// "50ms", "1.2s", "30s", "3m": how the log and the inspector write a duration.
    public static func duration(_ milliseconds: Milliseconds) -> String {
        if milliseconds < 1000 { return "\(milliseconds)ms" }
        if milliseconds < 10_000 {
            let tenths = milliseconds / 100
            return "\(tenths / 10).\(tenths % 10)s"
        }
        if milliseconds < 120_000 { return "\(milliseconds / 1000)s" }
        return "\(milliseconds / 60_000)m"
    }

    static func readable(_ event: PushEvent, deviceName: (String) -> String) -> String {
        switch event.kind {
        case .notificationCreated(let user, let n, let matched):
            return "a change for \(user) (\(count(matched, "matching change"))): \(about(n))"
        case .pruned(let id, let sub, let r):
            let alert = r.droppedAlertBody ? " and the alert" : ""
            return "\(tag(id)) (\(sub)) too big: \(r.sizeBefore) → \(r.sizeAfter) bytes, dropped \(r.droppedFields.joined(separator: ", "))\(alert)"
        case .originatorSkipped(let device, let id):
            return "\(tag(id)) not sent to \(deviceName(device)): it made the change"
        case .queued(let device, let id, let at):
            return "\(tag(id)) on its way to \(deviceName(device)), arrives in \(duration(max(0, at - event.time)))"
        case .coalesced(let device, let survivor, let merged, let n):
            return "\(tag(merged)) merged into \(tag(survivor)) for \(deviceName(device)) (stands for \(count(n, "notification")))"
        case .heldWhileOffline(let device, let id, let replaced, let n):
            let what = replaced.map { ", replacing \(tag($0))" } ?? ""
            return "\(deviceName(device)) is offline: holding \(tag(id))\(what) (stands for \(count(n, "notification")))"
        case .delivered(let d):
            return "delivered to \(deviceName(d.deviceID)) after \(duration(d.latency)): \(about(d.notification))"
        case .subscriptionDeleted(let user, let sub):
            return "deleted \(user)'s firesOnce subscription \(sub)"
        case .subscriptionRemovedWithZone(let user, let sub, let zone):
            return "deleted \(user)'s subscription \(sub): zone \(zone.zoneName) went away"
        case .deviceRegistered(let device, let user):
            return "\(deviceName(device)) registered for \(user)"
        case .deviceOnline(let device, let online):
            return "\(deviceName(device)) \(online ? "online" : "offline")"
        case .faultInjected(let device, let id, _, let detail):
            return "\(tag(id)) for \(deviceName(device)): \(detail) (injected fault)"
        }
    }
}
