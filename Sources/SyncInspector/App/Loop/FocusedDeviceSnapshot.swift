import SyncCore
import SyncClient

/// The focused device's side of the panes, built from what it holds and the
/// last ``ServerReading`` (by `SnapshotBuilder`, in the effect).
public struct FocusedDeviceSnapshot: Sendable, Equatable {
    /// The device's name: a snapshot for a device no longer focused is not shown.
    public var device: String
    public var zones: [ZoneListItem] = []
    /// The newest tokens (at most ``InspectorSnapshot/tokenLimit``), oldest first, and how many in all.
    public var tokens: [TokenReceipt] = []
    public var tokenTotal = 0
    public var notifications: [NotificationEntry] = []
    public var notificationTotal = 0
    /// What a fetch from the token the last read asked about would return (see ``ServerReading/rewind``).
    public var rewind: Rewind?
    /// The device's copy of the selected zone, as much as the records model needs.
    public var records: RecordRowsDeviceCopy?

    public init(
        device: String, zones: [ZoneListItem] = [], tokens: [TokenReceipt] = [], tokenTotal: Int = 0,
        notifications: [NotificationEntry] = [], notificationTotal: Int = 0, rewind: Rewind? = nil, records: RecordRowsDeviceCopy? = nil
    ) {
        self.device = device
        self.zones = zones
        self.tokens = tokens
        self.tokenTotal = tokenTotal
        self.notifications = notifications
        self.notificationTotal = notificationTotal
        self.rewind = rewind
        self.records = records
    }
}
