import SyncCore
import SyncClient
import SyncWorlds

/// What an effect read of the world, for the update step: the devices, the
/// events, the clock, the writer, the lesson, and what the focused device
/// holds as the panes show it. A value: ``InspectorReducer`` never reads the
/// world itself; it gets one of these in a message.
public struct WorldSnapshot: Sendable, Equatable {
    public var devices: [DeviceSummary] = []
    /// The latest events, oldest first, and how many there were in all.
    public var events: [WorldEvent] = []
    public var eventCount = 0
    public var writer: WriterStatus?
    /// The world's clock, and when its next event is due (`nil`: none).
    public var time = WorldTime()
    public var lesson: LessonStatus?
    /// What the focused device holds (`nil`: no device).
    public var focused: FocusedDeviceSnapshot?

    public init(
        devices: [DeviceSummary] = [], events: [WorldEvent] = [], eventCount: Int = 0, writer: WriterStatus? = nil,
        time: WorldTime = WorldTime(), lesson: LessonStatus? = nil, focused: FocusedDeviceSnapshot? = nil
    ) {
        self.devices = devices
        self.events = events
        self.eventCount = eventCount
        self.writer = writer
        self.time = time
        self.lesson = lesson
        self.focused = focused
    }
}

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
