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
