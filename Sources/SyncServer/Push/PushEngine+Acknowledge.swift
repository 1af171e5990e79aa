import SyncCore

extension PushEngine {
    // MARK: Acknowledged delivery (the network server's long-poll)

    /// The notifications delivered to a device and not yet acknowledged,
    /// oldest first, without taking them: a long-poll answers with these and
    /// they stay until the device says it got them
    /// (``acknowledgeNotifications(for:notificationIDs:)``), so a poll that
    /// dies on the way loses nothing.
    public func unacknowledgedNotifications(for deviceID: String) throws(CloudError) -> [CloudNotification] {
        guard let device = devices[deviceID] else {
            throw CloudError(.unknownItem, "No device '\(deviceID)' is registered for push notifications.")
        }
        return device.inbox
    }

    /// Removes the named notifications from a device's delivered ones (the
    /// device certainly has them); returns how many were removed. Unknown
    /// IDs (already acknowledged) are skipped.
    ///
    /// Only the oldest copy of each ID goes: a duplicated push (the same
    /// notification delivered twice, as a fault or as Apple sometimes does)
    /// keeps its ID, and its second copy is still to be delivered after the
    /// first is acknowledged.
    @discardableResult
    public func acknowledgeNotifications(for deviceID: String, notificationIDs: Set<String>) throws(CloudError) -> Int {
        guard let device = devices[deviceID] else {
            throw CloudError(.unknownItem, "No device '\(deviceID)' is registered for push notifications.")
        }
        var pending = notificationIDs
        var removed = 0
        device.inbox.removeAll { notification in
            guard pending.remove(notification.notificationID) != nil else { return false }
            removed += 1
            return true
        }
        let remaining = Set(device.inbox.map(\.notificationID))
        for id in notificationIDs where !remaining.contains(id) { device.inboxQueuedAt[id] = nil }
        return removed
    }

    /// When the server queued a notification delivered to a device and not
    /// yet acknowledged: the commit time of the oldest change it stands for
    /// (what a device measures push latency from). `nil` when unknown.
    public func queuedAt(ofNotification notificationID: String, for deviceID: String) -> Milliseconds? {
        devices[deviceID]?.inboxQueuedAt[notificationID]
    }

    /// The user a device's push channel belongs to; `nil` for an unknown device.
    public func owner(ofDevice deviceID: String) -> String? { devices[deviceID]?.user }
}
