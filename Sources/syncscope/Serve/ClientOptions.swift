import ArgumentParser
import Foundation
import Synchronization
import SyncCore
import SyncNetwork
import SyncServerHTTP

/// Where the server is and who is asking (``ServerAccessOptions``), plus what only `client` takes.
struct ClientOptions: ParsableArguments {
    @OptionGroup(title: "Server access")
    var access: ServerAccessOptions

    @Option(help: "Device ID sent as X-SyncScope-Device (the server does not push a device its own changes). Default: none.")
    var device: String?

    @Option(name: .customLong("admin-token"), help: "The server admin token, for export, import and reset (default: from admin.json in --server-data).")
    var adminToken: String?

    /// `--data`, the older name of `--server-data`.
    @Option(name: .customLong("data"), help: .private)
    var olderServerData: String?

    mutating func validate() throws {
        try access.adopt(serverData: olderServerData, spelled: "--data")
        olderServerData = nil
    }

    /// The user to act as.
    var user: String { access.user }

    func service() throws -> HTTPCloudService {
        HTTPCloudService(
            baseURL: try access.serverURL(), webAuthToken: try access.webAuthToken(), userRecordName: access.user, deviceID: device,
            container: access.container, environment: access.environment)
    }

    /// A connection signed in with the server admin token (whole-server calls).
    func adminService() throws -> HTTPCloudService {
        HTTPCloudService(
            baseURL: try access.serverURL(), webAuthToken: try serverAdminToken(), userRecordName: "(server admin)", container: access.container,
            environment: access.environment)
    }

    func serverAdminToken() throws -> String {
        if let adminToken { return adminToken }
        let file = AdminTokenFile.url(in: access.serverDataDirectory)
        guard let token = AdminTokenFile.read(in: access.serverDataDirectory) else {
            throw ClientFailure(
                "No --admin-token given and \(file.path) cannot be read. Export, import and reset act on every user, so they need the server admin token: pass --admin-token (syncscope serve prints it), or --server-data with the server's data folder.")
        }
        return token
    }
}
