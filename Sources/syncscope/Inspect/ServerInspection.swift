import ArgumentParser
import Foundation
import SyncCore
import SyncInspector
import SyncRemoteWorld

/// `syncscope inspect --server URL`: the inspector on a running server,
/// watched with its admin token (a ``ServerWatchWorld``). Everything curses
/// touches runs on the caller's isolation (``TerminalActor``: one thread);
/// the feed's long-poll and the reads of the server run on a thread of their
/// own while the loop waits for keys.
enum ServerInspection {
    static func run(serverURL: URL, adminToken: String, container: String, environment: ContainerEnvironment, logPath: String?) async throws {
        let log: InspectorLog?
        do {
            log = try logPath.map { path throws(TerminalError) in try InspectorLog(path: path) }
        } catch {
            InspectorLauncher.printError("syncscope: \(error)")
            throw ExitCode(1)
        }
        let world: ServerWatchWorld
        do {
            world = try await ServerWatchWorld(serverURL: serverURL, adminToken: adminToken, container: container, environment: environment)
        } catch {
            InspectorLauncher.printError("syncscope inspect: \(error.reason)")
            throw ExitCode(1)
        }
        let backend: NcursesBackend
        do {
            backend = try NcursesBackend()
        } catch {
            InspectorLauncher.printError("syncscope: \(error)")
            throw ExitCode(1)
        }
        log?.write("inspector started: watching \(world.serverObserver.source)")
        let controller = await InspectorController(world: world, screenSize: backend.size, theme: backend.environmentTheme(), log: log)
        do {
            try await controller.run(backend: backend)
            backend.restore()
        } catch {
            backend.restore()
            InspectorLauncher.printError("syncscope: \(error)")
            throw ExitCode(1)
        }
        log?.write("inspector ended")
    }
}
