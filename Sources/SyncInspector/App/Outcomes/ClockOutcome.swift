import SyncCore
import SyncClient

/// What a clock command did.
public enum ClockOutcome: Hashable, Sendable {
    case paused(Bool)
    case speed(Double)
    /// The clock moved to `to`; `lastEvent` is the last thing that happened on the way.
    case stepped(to: Milliseconds, lastEvent: String?)
    /// The world's clock is the wall clock (a device on a real server): nothing changed.
    case live
}
