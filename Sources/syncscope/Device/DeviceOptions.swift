import ArgumentParser
import Foundation
import SyncCore
import SyncInspector
import SyncRemoteWorld
import SyncServerHTTP
import SyncSimulation
import SyncWorlds

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
