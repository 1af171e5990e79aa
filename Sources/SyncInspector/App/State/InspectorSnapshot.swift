import SyncCore
import SyncClient
import SyncWorlds

/// What the inspector read from the simulation at its last refresh.
public struct InspectorSnapshot: Sendable, Equatable {
    public var devices: [DeviceSummary] = []
    /// The fault rules in force, in words.
    public var faultRules: [String] = []
    /// Database headings and zones as the focused device's user sees them.
    public var zones: [ZoneListItem] = []
    public var records = RecordList()
    /// The newest tokens of the focused device, oldest first (at most ``tokenLimit``).
    public var tokens: [TokenReceipt] = []
    /// How many tokens the device received in all.
    public var tokenTotal = 0
    public var rewind: Rewind?
    /// Notifications still on their way, then delivered ones, newest first.
    public var notifications: [NotificationEntry] = []
    public var notificationTotal = 0
    /// The latest simulation events, oldest first.
    public var events: [WorldEvent] = []
    public var eventCount = 0
    public var writer: WriterStatus?
    /// The lesson being played, if any.
    public var lesson: LessonStatus?

    /// The most tokens and notifications kept for display.
    public static let tokenLimit = 500

    public init() {}
}
