import ArgumentParser
import Foundation
import SyncCore
import SyncRemoteWorld

/// `syncscope inspect --server URL`: the inspector on a running server,
/// watched with its admin token (a ``ServerWatchWorld``). Everything curses
/// touches runs on the caller's isolation (``TerminalActor``: one thread);
/// the feed's long-poll and the reads of the server run on a thread of their
/// own while the loop waits for keys.
enum ServerInspection {
    static func run(serverURL: URL, adminToken: String, container: String, environment: ContainerEnvironment, logPath: String?) async throws {
        let log = try InspectorLauncher.openLog(logPath)
        let world: ServerWatchWorld
        do {
            world = try await ServerWatchWorld(serverURL: serverURL, adminToken: adminToken, container: container, environment: environment)
        } catch {
            // Unreachable, or not the admin token: said in words, before the terminal is taken.
            InspectorLauncher.printError("syncscope inspect: \(error.reason)")
            throw ExitCode(1)
        }
        try await InspectorLauncher.runLive(world, log: log, started: "watching \(world.serverObserver.source)")
    }
}
