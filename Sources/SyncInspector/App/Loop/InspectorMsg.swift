import SyncCore
import SyncWire
import SyncClient
import SyncWorlds

/// Everything that reaches the update step (Bubble Tea's Msg, TCA's Action):
/// a key, time passing, the terminal's size, an event of the world, and the
/// results of effects. ``InspectorReducer/reduce(_:_:)`` turns each into
/// state and effects.
///
/// Indirect: a message is one reference, whatever it carries. A live world
/// sends a thousand events a second, and each message is copied on its way
/// to the reducer; inline, every copy moved and retained the largest case's
/// payload (a world snapshot), which doubled the inspector's CPU in the live
/// loop (`syncscope-bench --inspector-only`).
public indirect enum InspectorMsg: Sendable {
    /// The loop starts on a terminal of this size at real time `now`;
    /// `offKeyPath`: its effects run on a thread of their own while keys are
    /// read (a live world), so the device's own side is read apart from the server.
    case started(size: Size, now: Milliseconds, offKeyPath: Bool = false)
    /// Real time is `now` (the loop woke up): a highlight may expire, and a
    /// running clock asks to move the world on.
    case tick(now: Milliseconds)
    case key(KeyEvent)
    /// Run a command as if a key had asked for it.
    case command(InspectorCommand)
    /// Read the server and the world again (the first frame; a test after it changed the world).
    case refresh
    /// The terminal has another size.
    case resized(Size)
    /// The state was drawn: nothing waits to be drawn.
    case frameDrawn
    /// Something happened in the world (sent by the world's observer, as it happens).
    case worldEvent(WorldEvent)
    /// An effect started off the key path (the runner of a live world says
    /// so; in process, effects end before the next frame).
    case effectStarted(InspectorEffect)
    /// A command ran, and this is what it did; `at`: the world's clock after it.
    case commandFinished(InspectorCommand, InspectorOutcome, at: WorldTime)
    /// A server read answered, with the world as it stood after it.
    case serverRead(ServerReadResult)
    /// The world was read (not the server): the devices' own side, at once.
    case worldRead(WorldSnapshot)
    /// The world's time moved on.
    case advanced(WorldTime)
    /// A lesson built its world again: selections start over with this world.
    case worldReplaced(WorldSnapshot)
    /// A watched server's event feed answered (or could not be read).
    case feedRead(Result<WireServerEvents, CloudError>)
    /// A watched server's users, zones, records and lags were read.
    case watchRead(Result<ServerWatchReading, CloudError>)
    /// A watched server renamed a client (its clients as they are now), or could not.
    case clientRenamed(Result<[WireClient], CloudError>)
}
