import SyncCore

/// One device's push channel.
final class DeviceChannel {
    let id: String
    var user: String
    var containers: Set<PushContainer> = []
    var online = true
    /// Coalescing on the server or in transit.
    var pending: [PendingItem] = []
    /// What the push service keeps while the device is offline: the latest only.
    var held: PendingItem?
    /// Delivered, not yet taken by the device.
    var inbox: [CloudNotification] = []
    /// When the server queued each notification of ``inbox`` (the commit
    /// time of the oldest change it stands for), by notification ID.
    var inboxQueuedAt: [String: Milliseconds] = [:]

    init(id: String, user: String) {
        self.id = id
        self.user = user
    }
}
