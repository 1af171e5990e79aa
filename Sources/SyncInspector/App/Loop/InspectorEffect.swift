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
    /// Read the world alone (the devices' own side, no server), while a
    /// server read may be waiting for the network: it never suspends, so it
    /// runs at once, beside the effect under way. Answers ``InspectorMsg/worldRead(_:)``.
    case readWorld
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
    /// A watched server (`inspect --server`): after `delay` ms, the event
    /// feed's events after `after`, waiting up to `timeout` s for one.
    /// Answers ``InspectorMsg/feedRead(_:)``.
    case readFeed(after: UInt64, timeout: Double, delay: Milliseconds)
    /// A watched server: every user's zones, a zone's records, the focused
    /// client's lags. Answers ``InspectorMsg/watchRead(_:)``.
    case readWatch(ServerWatchRequest)
    /// A watched server: gives the client with this key a new short name.
    /// Answers ``InspectorMsg/clientRenamed(_:)``.
    case renameClient(key: String, name: String)

    /// Whether it runs in its turn, after the one before it has answered:
    /// the effects that may change the world or wait for the server. (A
    /// world read never suspends, and the terminal's effects touch no world.)
    public var runsInTurn: Bool {
        switch self {
        case .command, .readServer, .advance, .advanceLive: true
        // A watched server's reads touch no world: the feed's long-poll runs beside them.
        case .readWorld, .repaint, .copy, .quit, .readFeed, .readWatch, .renameClient: false
        }
    }
}
