import SyncCore
import SyncClient

/// The simulation clock as the status line shows it.
public struct ClockStatus: Hashable, Sendable {
    public var now: Milliseconds
    public var isPaused: Bool
    /// Virtual seconds per real second.
    public var speed: Double
    /// Real time (a device on a real server): pause and speed do not apply.
    public var isLive = false

    public init(now: Milliseconds, isPaused: Bool, speed: Double) {
        self.now = now
        self.isPaused = isPaused
        self.speed = speed
    }

    /// The speeds `+` and `-` step through.
    public static let speeds: [Double] = [0.25, 0.5, 1, 2, 5, 10, 20, 50]
}
