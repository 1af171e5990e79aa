import SyncCore
import SyncClient

/// Work the update step asks for (Bubble Tea's Cmd, TCA's Effect): the
/// controller's effect runner carries it out and sends what it found back as
/// an ``InspectorMsg``. Effects that touch the world run one at a time, in
/// order (the world is not thread-safe, and two mutations must not
/// interleave): ``EffectQueue`` in the state keeps that order, so the
/// update step emits one only when the one before it has finished.
public enum InspectorEffect: Hashable, Sendable {
    /// A command that acts on the world (a device action, a lesson step, a
    /// clock step, the writer, a fault). Answers ``InspectorMsg/commandFinished(_:_:at:)``.
    case command(InspectorCommand)
    /// Read the server for `device` and the selection `target`, then the
    /// world. Answers ``InspectorMsg/serverRead(_:)``.
    case readServer(ServerReadRequest)
    /// Move virtual time on by this much. Answers ``InspectorMsg/advanced(_:)``.
    case advance(by: Milliseconds)
    /// A world on real time: handle what arrived (pushes) and what is due.
    /// Answers ``InspectorMsg/advanced(_:)``.
    case advanceLive
    /// Repaint every cell of the terminal at the next frame (Ctrl-L). Answers nothing.
    case repaint
    /// Put `text` on the terminal's clipboard. Answers ``InspectorMsg/commandFinished(_:_:at:)``.
    case copy(String, what: String)
    /// Stop the loop (and the effect running, within a grace).
    case quit

    /// Whether it touches the world (and so waits for the one before it).
    public var touchesWorld: Bool {
        switch self {
        case .command, .readServer, .advance, .advanceLive: true
        case .repaint, .copy, .quit: false
        }
    }
}
