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
        try await terminal.run { try await Self.inspect(options: options, logPath: log, executor: terminal.executor) }
    }

    /// Connects the device, then runs the inspector on it; everything curses
    /// touches runs on the caller's isolation (``TerminalActor``: one thread),
    /// and so do the device's commands and server reads, as tasks on `executor`.
    static func inspect(options: DeviceOptions, logPath: String?, executor: TerminalExecutor) async throws {
        let log: InspectorLog?
        do {
            log = try logPath.map { path throws(TerminalError) in try InspectorLog(path: path) }
        } catch {
            InspectorLauncher.printError("syncscope: \(error)")
            throw ExitCode(1)
        }
        let world = try await options.connect()
        defer { world.close() }
        let backend: NcursesBackend
        do {
            backend = try NcursesBackend()
        } catch {
            InspectorLauncher.printError("syncscope: \(error)")
            throw ExitCode(1)
        }
        // The first line, before the events of the device's first sync (the controller logs those).
        log?.write("inspector started: device \(world.device.name) on \(world.serverObserver.source)")
        let controller = await InspectorController(
            world: world, screenSize: backend.size, theme: backend.environmentTheme(), log: log)
        do {
            try await controller.run(backend: backend, executor: executor)
            backend.restore()
        } catch {
            backend.restore()
            InspectorLauncher.printError("syncscope: \(error)")
            throw ExitCode(1)
        }
        log?.write("inspector ended")
    }
}

/// Which server and who (``ServerAccessOptions``), which device, where its cache lives.
struct DeviceOptions: ParsableArguments {
    @OptionGroup(title: "Server access")
    var access: ServerAccessOptions

    @Option(help: "The device's name, e.g. iPhone.")
    var name: String

    @Option(help: "The device's folder: its SQLite cache and its device ID (default: devices/USER-NAME in syncscope's data folder).")
    var data: String?

    /// `--data-of-server`, the older name of `--server-data`.
    @Option(name: .customLong("data-of-server"), help: .private)
    var olderServerData: String?

    @Flag(help: "Forget the cache (records, pending changes, tokens) and fetch everything again; the device ID stays.")
    var fresh = false

    @Flag(help: "Do not save database subscriptions (then only subscriptions made elsewhere push this device).")
    var noSubscribe = false

    @Flag(help: "Record pushes without fetching (fetch only when asked).")
    var noAutoFetch = false

    @Option(help: "Seconds each long-poll of the webcourier URL waits.")
    var pollTimeout: Double = 25

    mutating func validate() throws {
        try access.adopt(serverData: olderServerData, spelled: "--data-of-server")
        olderServerData = nil
        guard !name.isEmpty else { throw ValidationError("--name must not be empty.") }
        guard pollTimeout > 0, pollTimeout <= 300 else { throw ValidationError("--poll-timeout must be more than 0 and at most 300 (got \(pollTimeout)).") }
    }

    /// The user the device belongs to.
    var user: String { access.user }

    /// The device's folder: --data, or one per user and device in syncscope's data folder.
    var dataDirectory: URL {
        if let data { return URL(fileURLWithPath: data) }
        return Self.defaultDevicesDirectory.appendingPathComponent(Self.folderName(user: user, device: name))
    }

    /// `devices/` in syncscope's data folder (`$XDG_DATA_HOME/syncscope` or `~/.local/share/syncscope`).
    static var defaultDevicesDirectory: URL {
        ServeOptions.defaultDataDirectory.appendingPathComponent("devices")
    }

    /// `alice-iPhone`, with anything but letters, digits, `.`, `_` and `-` made `_`.
    static func folderName(user: String, device: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")
        let cleaned = String("\(user)-\(device)".map { allowed.contains($0) ? $0 : "_" })
        return cleaned.hasPrefix(".") ? "_" + cleaned.dropFirst() : cleaned
    }

    func setup() throws -> RemoteDeviceSetup {
        RemoteDeviceSetup(
            serverURL: try access.serverURL(), webAuthToken: try access.webAuthToken(), user: user, name: name, dataDirectory: dataDirectory,
            container: access.container, environment: access.environment, autoFetchOnPush: !noAutoFetch, subscribeToDatabases: !noSubscribe,
            freshCache: fresh, pollTimeout: pollTimeout)
    }

    /// Connects the device and starts it (first sync, long-poll); a problem
    /// comes out as a ``DeviceCommandError`` with the server's address in it.
    func connect() async throws -> RemoteWorld {
        let setup = try setup()
        do {
            return try await RemoteWorld.connect(setup)
        } catch let error as CloudError {
            throw DeviceCommandError(error.reason)
        }
    }
}

/// A problem starting a device, said as a sentence (no usage text: the options were fine).
struct DeviceCommandError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
