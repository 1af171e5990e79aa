import ArgumentParser
import Foundation
import SyncCore
import SyncServerHost
import SyncServerHTTP
import Testing
@testable import syncscope

/// The server-access options `client` and `device` share: one set of names,
/// defaults, errors and the users.json lookup, whichever command parses them.
@Suite struct ServerAccessOptionsTests {
    func access(_ arguments: [String]) throws -> ServerAccessOptions {
        try ServerAccessOptions.parse(arguments)
    }

    func client(_ arguments: [String]) throws -> ClientOptions {
        guard let command = try ClientCommand.parseAsRoot(["zones"] + arguments) as? ClientZones else { throw TestFailure("not client zones") }
        return command.options
    }

    func device(_ arguments: [String]) throws -> DeviceOptions {
        guard let command = try DeviceCommand.parseAsRoot(["--name", "iPhone"] + arguments) as? DeviceCommand else { throw TestFailure("not device") }
        return command.options
    }

    func validationMessage(_ body: () throws -> Void) -> String {
        do {
            try body()
            return ""
        } catch {
            return DeviceCommand.message(for: error)
        }
    }

    func usersFolder(_ users: [String: String]) throws -> URL {
        let folder = temporaryFolder("access")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try UsersFile(users: users.sorted(by: { $0.key < $1.key }).map { UsersFile.User(name: $0.key, webAuthToken: $0.value) }).write(to: folder)
        return folder
    }

    @Test func theDefaultsAreTheLocalServerAsAliceInDevelopment() throws {
        let options = try access([])
        #expect(try options.serverURL() == URL(string: "http://127.0.0.1:8400"))
        #expect(options.user == "alice")
        #expect(options.token == nil)
        #expect(options.container == "iCloud.com.example.SyncScope")
        #expect(options.environment == .development)
        #expect(options.serverDataDirectory == ServeOptions.defaultDataDirectory)
    }

    @Test func everyOptionParsesUnderTheSameNameInClientAndDevice() throws {
        let arguments = [
            "--server", "https://sync.example:9000", "--user", "bob", "--token", "t0k", "--server-data", "/srv/syncscope",
            "--container", "iCloud.org.example.Notes", "--environment", "production",
        ]
        for parsed in [try access(arguments), try client(arguments).access, try device(arguments).access] {
            #expect(try parsed.serverURL() == URL(string: "https://sync.example:9000"))
            #expect(parsed.user == "bob")
            #expect(try parsed.webAuthToken() == "t0k")
            #expect(parsed.serverDataDirectory.path == "/srv/syncscope")
            #expect(parsed.container == "iCloud.org.example.Notes")
            #expect(parsed.environment == .production)
        }
    }

    @Test func theOlderSpellingsOfServerDataStillWork() throws {
        #expect(try client(["--data", "/srv/a"]).access.serverDataDirectory.path == "/srv/a")
        #expect(try device(["--data-of-server", "/srv/b"]).access.serverDataDirectory.path == "/srv/b")
        // Device's own --data is its cache folder, not the server's.
        let phone = try device(["--data", "/tmp/phone", "--server-data", "/srv/c"])
        #expect(phone.dataDirectory.path == "/tmp/phone")
        #expect(phone.access.serverDataDirectory.path == "/srv/c")
        let both = validationMessage { _ = try client(["--data", "/srv/a", "--server-data", "/srv/b"]) }
        #expect(both.contains("--data is the older name of --server-data"), "\(both)")
    }

    @Test func badValuesAreRefusedWithWhatToDo() {
        let scheme = validationMessage { _ = try access(["--server", "ftp://example.com"]) }
        #expect(scheme.contains("--server must be an http:// address with a host"), "\(scheme)")
        let bare = validationMessage { _ = try client(["--server", "localhost:8400"]) }
        #expect(bare.contains("Did you mean http://localhost:8400?"), "\(bare)")
        #expect(validationMessage { _ = try device(["--user", ""]) }.contains("--user must not be empty"))
        #expect(validationMessage { _ = try access(["--token", ""]) }.contains("--token must not be empty"))
        let environment = validationMessage { _ = try access(["--environment", "staging"]) }
        #expect(environment.contains("staging"), "\(environment)")
    }

    @Test func theTokenComesFromUsersJsonWhenNotGiven() throws {
        let folder = try usersFolder(["alice": "alice-token", "bob": "bob-token"])
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try access(["--user", "bob", "--server-data", folder.path]).webAuthToken() == "bob-token")
        // --token wins without the file being read.
        #expect(try access(["--token", "given", "--server-data", "/nonexistent"]).webAuthToken() == "given")

        let carol = #expect(throws: ServerAccessError.self) { _ = try access(["--user", "carol", "--server-data", folder.path]).webAuthToken() }
        #expect(carol?.description.contains("has no user 'carol'; it has alice, bob") == true)

        let nowhere = #expect(throws: ServerAccessError.self) { _ = try access(["--server-data", "/nonexistent/syncscope"]).webAuthToken() }
        #expect(nowhere?.description.contains("/nonexistent/syncscope/users.json does not exist") == true)
        #expect(nowhere?.description.contains("Pass --token") == true)
    }

    @Test func aMalformedUsersFileIsNamedWithWhatIsWrong() throws {
        let folder = temporaryFolder("access-bad")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(#"{"users": [{"name": "alice"}]}"#.utf8).write(to: folder.appendingPathComponent("users.json"))
        let error = #expect(throws: ServerAccessError.self) { _ = try client(["--server-data", folder.path]).service() }
        let text = try #require(error).description
        #expect(text.contains("\(folder.path)/users.json is not a users file"), "\(text)")
        #expect(text.contains("users[0].webAuthToken is missing"), "\(text)")
    }
}
