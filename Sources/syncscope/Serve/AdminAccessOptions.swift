import ArgumentParser
import Foundation
import SyncServerHost

/// The server admin token of a running `syncscope serve`, for the commands
/// that watch the whole server (`doctor`, `inspect --server`): `--admin-token`,
/// or `admin.json` in `--server-data` (default: the folder `serve` uses by default).
struct AdminAccessOptions: ParsableArguments {
    @Option(name: .customLong("admin-token"), help: "The server admin token (default: from admin.json in --server-data).")
    var adminToken: String?

    @Option(
        name: .customLong("server-data"),
        help: "The server's data folder, to read admin.json from (default: $XDG_DATA_HOME/syncscope or ~/.local/share/syncscope).")
    var serverData: String?

    /// Whether either option was given.
    var isGiven: Bool { adminToken != nil || serverData != nil }

    /// The token, or what to say when there is none (see ``AdminTokenFile/missing(in:)``).
    func token() -> Result<String, AdminTokenMissing> {
        let directory = serverData.map { URL(fileURLWithPath: $0) } ?? ServeOptions.defaultDataDirectory
        guard let token = adminToken ?? AdminTokenFile.read(in: directory) else { return .failure(AdminTokenMissing(message: AdminTokenFile.missing(in: directory))) }
        return .success(token)
    }
}

/// No admin token given, and none in the data folder: what to say.
struct AdminTokenMissing: Error {
    var message: String
}
