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

    @Option(name: .customLong("key-id"), help: "A server-to-server key's ID: sign each request with it (with --private-key) instead of a web auth token; public database only.")
    var keyID: String?

    @Option(name: .customLong("private-key"), help: "The server-to-server key's ECDSA P-256 private key, a PEM file (with --key-id).")
    var privateKey: String?

    @Option(name: .customLong("admin-token"), help: "The server admin token, for export, import and reset (default: from admin.json in --server-data).")
    var adminToken: String?

    /// `--data`, the older name of `--server-data`.
    @Option(name: .customLong("data"), help: .private)
    var olderServerData: String?

    mutating func validate() throws {
        try access.adopt(serverData: olderServerData, spelled: "--data")
        olderServerData = nil
        guard (keyID == nil) == (privateKey == nil) else { throw ValidationError("--key-id and --private-key go together.") }
    }

    /// The signer of `--key-id` and `--private-key`, if given.
    func serverKeySigner() throws -> ServerKeySigner? {
        guard let keyID, let privateKey else { return nil }
        let pem: String
        do { pem = try String(contentsOfFile: privateKey, encoding: .utf8) } catch {
            throw ClientFailure("--private-key: cannot read \(privateKey) (\(error.localizedDescription)).")
        }
        do { return try ServerKeySigner(keyID: keyID, privateKeyPEM: pem) } catch { throw ClientFailure("--private-key: \(error.reason)") }
    }

    /// The user to act as.
    var user: String { access.user }

    func service() throws -> HTTPCloudService {
        if let signer = try serverKeySigner() {
            return HTTPCloudService(
                baseURL: try access.serverURL(), webAuthToken: "", userRecordName: "_" + signer.keyID, deviceID: device, container: access.container,
                environment: access.environment, serverKeySigner: signer)
        }
        return HTTPCloudService(
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
