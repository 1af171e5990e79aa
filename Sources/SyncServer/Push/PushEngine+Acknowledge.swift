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
    @discardableResult
    public func acknowledgeNotifications(for deviceID: String, notificationIDs: Set<String>) throws(CloudError) -> Int {
        guard let device = devices[deviceID] else {
            throw CloudError(.unknownItem, "No device '\(deviceID)' is registered for push notifications.")
        }
        let before = device.inbox.count
        device.inbox.removeAll { notificationIDs.contains($0.notificationID) }
        for id in notificationIDs { device.inboxQueuedAt[id] = nil }
        return before - device.inbox.count
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
