/// Something the push layer did, for the inspector and transcripts.
public struct PushEvent: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// A commit or a zone-level database change fired a subscription of
        /// `user`; the notification stands for `matchedChanges` record changes
        /// of the commit (1 for a zone-level change).
        case notificationCreated(user: String, notification: CloudNotification, matchedChanges: Int)
        /// The notification was too big; these fields (and maybe the alert) were dropped.
        case pruned(notificationID: String, subscriptionID: String, report: CloudNotification.PruneReport)
        /// The device that made the change is not told about it.
        case originatorSkipped(deviceID: String, notificationID: String)
        /// A notification started waiting for a device.
        case queued(deviceID: String, notificationID: String, arrivesAt: Milliseconds)
        /// A waiting notification merged into a newer one (the survivor).
        case coalesced(deviceID: String, survivorID: String, mergedID: String, coalescedCount: Int)
        /// The device was offline when the notification arrived; the push
        /// service keeps only the latest, replacing `replacedID`.
        case heldWhileOffline(deviceID: String, notificationID: String, replacedID: String?, coalescedCount: Int)
        case delivered(Delivery)
        /// A `firesOnce` subscription fired, so the server deleted it.
        case subscriptionDeleted(user: String, subscriptionID: String)
        /// The zone a record zone subscription watched went away, and the subscription with it.
        case subscriptionRemovedWithZone(user: String, subscriptionID: String, zoneID: RecordZoneID)
        case deviceRegistered(deviceID: String, user: String)
        case deviceOnline(deviceID: String, online: Bool)
        /// A push fault of the fault plan hit this notification: `detail` is
        /// "dropped", "duplicate", "delayed 2000 ms" or "reordered".
        case faultInjected(deviceID: String, notificationID: String, fault: FaultKind, detail: String)
    }

    public var time: Milliseconds
    public var kind: Kind

    public init(time: Milliseconds, kind: Kind) {
        self.time = time
        self.kind = kind
    }

    public var description: String {
        switch kind {
        case .notificationCreated(let user, let n, let matched):
            return "\(time) created for \(user): \(n) (\(matched) matching change\(matched == 1 ? "" : "s"))"
        case .pruned(let id, let sub, let r):
            let alert = r.droppedAlertBody ? " and the alert" : ""
            return "\(time) pruned \(id) (\(sub)): \(r.sizeBefore) → \(r.sizeAfter) bytes, dropped [\(r.droppedFields.joined(separator: ", "))]\(alert)"
        case .originatorSkipped(let device, let id):
            return "\(time) not sent \(id) to \(device): it made the change"
        case .queued(let device, let id, let at):
            return "\(time) queued \(id) for \(device), arrives at \(at)"
        case .coalesced(let device, let survivor, let merged, let count):
            return "\(time) coalesced \(merged) into \(survivor) for \(device) (stands for \(count))"
        case .heldWhileOffline(let device, let id, let replaced, let count):
            let what = replaced.map { ", replacing \($0)" } ?? ""
            return "\(time) holding \(id) for offline \(device)\(what) (stands for \(count))"
        case .delivered(let d):
            return "\(time) \(d)"
        case .subscriptionDeleted(let user, let sub):
            return "\(time) deleted firesOnce subscription \(sub) of \(user)"
        case .subscriptionRemovedWithZone(let user, let sub, let zone):
            return "\(time) deleted zone subscription \(sub) of \(user): zone \(zone.zoneName) went away"
        case .deviceRegistered(let device, let user):
            return "\(time) registered device \(device) for \(user)"
        case .deviceOnline(let device, let online):
            return "\(time) device \(device) \(online ? "online" : "offline")"
        case .faultInjected(let device, let id, _, let detail):
            return "\(time) \(id) for \(device): \(detail) (injected fault)"
        }
    }
}
