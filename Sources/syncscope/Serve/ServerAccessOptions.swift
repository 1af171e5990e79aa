import ArgumentParser
import Foundation
import SyncCore
import SyncServerHTTP

/// Which running `syncscope serve` to talk to, and as whom: the options every
/// command that connects to a server shares (`client …`, `device`), with the
/// same names, defaults, help and errors everywhere.
///
/// The user's web auth token is `--token`, or else the user's entry in the
/// server's `users.json` (``UsersFile``) in `--server-data`, which defaults to
/// the folder `syncscope serve` uses by default.
struct ServerAccessOptions: ParsableArguments {
    @Option(help: "The server's address: http:// or https:// with a host.")
    var server = "http://127.0.0.1:8400"

    @Option(help: "The user to act as (one of the server's users, see `syncscope serve --user`).")
    var user = "alice"

    @Option(help: "The user's web auth token (default: the user's token in users.json in --server-data; `syncscope serve` prints it too).")
    var token: String?

    @Option(
        name: .customLong("server-data"),
        help: "The server's data folder, to read users.json (and admin.json) from when no token is given (default: $XDG_DATA_HOME/syncscope or ~/.local/share/syncscope, as `syncscope serve` uses).")
    var serverData: String?

    @Option(help: "The container identifier.")
    var container = "iCloud.com.example.SyncScope"

    @Option(help: "The container's environment.")
    var environment: ContainerEnvironment = .development

    func validate() throws {
        _ = try serverURL()
        guard !user.isEmpty else { throw ValidationError("--user must not be empty.") }
        if let token, token.isEmpty { throw ValidationError("--token must not be empty (leave it out to read users.json).") }
        if let serverData, serverData.isEmpty { throw ValidationError("--server-data must not be empty.") }
        guard !container.isEmpty else { throw ValidationError("--container must not be empty.") }
    }

    /// `--server` as a URL: http or https, with a host.
    func serverURL() throws -> URL {
        guard let url = URL(string: server), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty
        else {
            let hint = server.contains("://") || server.isEmpty ? "" : " Did you mean http://\(server)?"
            throw ValidationError("--server must be an http:// address with a host, such as http://127.0.0.1:8400 (got '\(server)').\(hint)")
        }
        return url
    }

    /// The server's data folder: `--server-data`, or the server's default.
    var serverDataDirectory: URL {
        serverData.map { URL(fileURLWithPath: $0) } ?? ServeOptions.defaultDataDirectory
    }

    /// `--token`, or the user's token from the server's `users.json`.
    func webAuthToken() throws(ServerAccessError) -> String {
        if let token { return token }
        let users: UsersFile
        do {
            users = try UsersFile.read(from: serverDataDirectory)
        } catch {
            throw ServerAccessError(
                "No --token given, and \(error). Pass --token (`syncscope serve` prints each user's token), or --server-data with the server's data folder.")
        }
        guard let token = users.webAuthToken(of: user) else {
            let known = users.names.joined(separator: ", ")
            throw ServerAccessError(
                "\(UsersFile.url(in: serverDataDirectory).path) has no user '\(user)'; it has \(known.isEmpty ? "none" : known). Start the server with --user \(user), or pick one of those.")
        }
        return token
    }

    /// Takes an older spelling of `--server-data` (kept, hidden, so scripts keep working).
    mutating func adopt(serverData alias: String?, spelled name: String) throws {
        guard let alias else { return }
        if let serverData, serverData != alias {
            throw ValidationError("\(name) is the older name of --server-data; give one of them (got '\(alias)' and '\(serverData)').")
        }
        serverData = alias
    }
}

extension ContainerEnvironment: ExpressibleByArgument {}
