import ArgumentParser
import Foundation
import SyncCore
import SyncInspector
import SyncRemoteWorld
import SyncServerHost
import SyncServerSQLite
import SyncServerHTTP
import SyncSimulation
import SyncWorlds

/// `syncscope device`: one device of one user, connected to a running `syncscope serve`.
struct DeviceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device",
        abstract: "Be one device of one user on a running `syncscope serve`: push, fetches with cached tokens, a cache that survives restarts.",
        discussion: """
            The device registers for push (tokens/create once, then tokens/register), subscribes to its user's private and \
            shared databases, long-polls its webcourier URL, and fetches over HTTP from the change tokens in its own SQLite \
            cache. Its folder (--data) keeps the cache and the device ID, so a device started again resumes from its tokens: \
            its first fetch brings only what changed while it was away.

            The user's web auth token comes from --token; otherwise from users.json in the server's data folder \
            (--server-data, default: the server's default folder, as `syncscope serve` writes it). `syncscope serve` \
            also prints each user's token when it starts.

            On a terminal it opens the inspector for the device (live: pushes redraw it, q quits). With --headless, \
            or when standard output is not a terminal, it prints what the device does, one line per event, until \
            Ctrl-C (or --seconds).
            """
    )

    @OptionGroup var options: DeviceOptions

    @Option(help: "Stop after this many seconds (default: run until Ctrl-C; --headless only).")
    var seconds: Double?

    @Flag(help: "Print events one a line instead of opening the inspector (the default when standard output is not a terminal).")
    var headless = false

    @Option(help: "Write a log of every event, key and action to this file (inspector only).")
    var log: String?

    func validate() throws {
        // `options` (and its server access group) validated themselves when parsed.
        if let seconds, !(seconds >= 0) { throw ValidationError("--seconds must be 0 or more (got \(seconds)).") }
    }

    func run() async throws {
        let onTerminal = isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
        if headless || seconds != nil || !onTerminal {
            if !headless, seconds == nil {
                InspectorLauncher.printError("syncscope device: not a terminal, printing events instead of the inspector (--headless).")
            }
            let world = try await options.connect()
            defer { world.close() }
            await DeviceWatch(world: world, seconds: seconds, write: StandardOutput.write).run()
            return
        }
        let (options, log) = (options, log)
        let terminal = TerminalActor()
        try await terminal.run { try await Self.inspect(options: options, logPath: log) }
    }

    /// Connects the device, then runs the inspector on it; everything curses
    /// touches runs on the caller's isolation (``TerminalActor``: one thread);
    /// the device's commands and server reads run on a thread of their own
    /// while the loop waits for keys (the inspector's `TaskEffectRunner`).
    static func inspect(options: DeviceOptions, logPath: String?) async throws {
        let log = try InspectorLauncher.openLog(logPath)
        let world = try await options.connect()
        defer { world.close() }
        try await InspectorLauncher.runLive(world, log: log, started: "device \(world.device.name) on \(world.serverObserver.source)")
    }
}
