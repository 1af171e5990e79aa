import SyncCore
import SyncClient

/// What a command did, whatever it acted on: the command runner returns one
/// for every command, and ``InspectorUpdate`` turns it into state and a message. Values only: tests build them by hand.
public enum InspectorOutcome: Hashable, Sendable {
    /// A device action (``CommandOutcome``).
    case device(CommandOutcome)
    /// A lesson step ran, the lesson was rebuilt, or it could not be (``LessonOutcome``).
    case lesson(LessonOutcome)
    /// The clock was paused, sped up or stepped (``ClockOutcome``).
    case clock(ClockOutcome)
    /// The faults overlay's rule went in (or the rules went), or the world cannot take faults.
    case faults(FaultsOutcome)
    /// The demo writer was started or stopped: `interval` between its changes.
    case writer(running: Bool, interval: Milliseconds)
    /// `y`: the text of `what` went to the clipboard, or could not.
    case copied(what: String, Clipboard.Outcome)
    /// Nothing to say (a repaint; a lesson key without a lesson; a writer key without a writer).
    case nothing
}
