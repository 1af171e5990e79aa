import SyncCore
import SyncClient

/// The effects on the world, in order: the one under way and those
/// waiting. Effects on one world run one at a time (it is not thread-safe,
/// and two mutations must not interleave), so the update step starts the
/// next only when the one before it has answered.
public struct EffectQueue: Hashable, Sendable {
    /// What waits: a command, or a read of the server (which reads the selection of when it starts).
    public enum Waiting: Hashable, Sendable {
        case command(InspectorCommand)
        case readServer
    }

    /// What a device action under way heard meanwhile: something worth saying
    /// (a sync error, a conflict merged), and whether an error was followed by
    /// an answer from the server (a retry worked).
    public struct ActionWatch: Hashable, Sendable {
        public var notable: InspectorMessage?
        public var recovered = false
    }

    /// The effect under way.
    public internal(set) var running: InspectorEffect?
    public internal(set) var waiting: [Waiting] = []
    /// Set while a device action runs.
    public internal(set) var action: ActionWatch?
    /// Effects run off the key path (a live world): after a change, the
    /// devices' own side is read at once, apart from the server.
    public internal(set) var offKeyPath = false

    public init() {}

    /// Whether nothing runs and nothing waits.
    public var isIdle: Bool { running == nil && waiting.isEmpty }

    /// Queues `work`. A read already waiting is not queued twice.
    mutating func enqueue(_ work: Waiting) {
        if work == .readServer, waiting.contains(.readServer) { return }
        waiting.append(work)
    }

    /// The command running or waiting first, in words ("fetch"), if any.
    var busyWith: String? {
        if case .command(let command)? = running { return InspectorReducer.describe(command) }
        for case .command(let command) in waiting { return InspectorReducer.describe(command) }
        return nil
    }

    /// How many commands wait.
    var waitingCommands: Int {
        waiting.filter { if case .command = $0 { true } else { false } }.count
    }
}
