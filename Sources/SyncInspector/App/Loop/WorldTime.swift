import SyncCore
import SyncClient

/// Where the world's clock stands, read by an effect: the update step keeps
/// the clock on screen and the time line's deadlines from it.
public struct WorldTime: Hashable, Sendable {
    /// The world's time.
    public var now: Milliseconds
    /// When its next event is due (`nil`: nothing is scheduled).
    public var nextEvent: Milliseconds?
    /// Real time when it was read.
    public var real: Milliseconds

    public init(now: Milliseconds = 0, nextEvent: Milliseconds? = nil, real: Milliseconds = 0) {
        self.now = now
        self.nextEvent = nextEvent
        self.real = real
    }
}
