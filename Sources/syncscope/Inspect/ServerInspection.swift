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
    static func run(_ world: ServerWatchWorld, logPath: String?) async throws {
        let log = try InspectorLauncher.openLog(logPath)
        try await InspectorLauncher.runLive(world, log: log, started: "watching \(world.serverObserver.source)")
    }
}
