import Foundation
import SyncCore
import Testing
@testable import SyncServerHost
@testable import SyncServerSQLite
@testable import SyncServerHTTP

/// `users.json`: the one type the server writes and the CLI reads.
@Suite struct UsersFileTests {
    func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("users-file-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func aWrittenFileReadsBackTheSameAndOnlyItsOwnerCanReadIt() throws {
        let directory = try folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = UsersFile(users: [.init(name: "alice", webAuthToken: "a-token"), .init(name: "bob", webAuthToken: "b-token")])
        try file.write(to: directory)
        let read = try UsersFile.read(from: directory)
        #expect(read == file)
        #expect(read.webAuthToken(of: "bob") == "b-token")
        #expect(read.webAuthToken(of: "carol") == nil)
        #expect(read.names == ["alice", "bob"])
        let attributes = try FileManager.default.attributesOfItem(atPath: UsersFile.url(in: directory).path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        // The shape on disk is the documented one.
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: UsersFile.url(in: directory))) as? [String: Any]
        let users = try #require(json?["users"] as? [[String: String]])
        #expect(users.first == ["name": "alice", "webAuthToken": "a-token"])
    }

    @Test func theServerWritesTheFileEveryReaderReads() async throws {
        let directory = try folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let host = try await ServerHost.start(options: ServeOptions(dataDirectory: directory, users: ["alice", "carol"], coalescingWindow: 0, seed: 9, quiet: true))
        let file = try UsersFile.read(from: directory)
        #expect(file.names == ["alice", "carol"])
        for account in host.users { #expect(file.webAuthToken(of: account.name) == account.webAuthToken) }
        await host.stop()
    }

    @Test func aMissingFileSaysSo() throws {
        let directory = try folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        let error = #expect(throws: UsersFileError.self) { _ = try UsersFile.read(from: directory) }
        #expect(error?.description == "\(UsersFile.url(in: directory).path) does not exist")
    }

    @Test(arguments: [
        ("not json at all", "it is not JSON"),
        ("{}", "users is missing"),
        (#"{"users": {"name": "alice"}}"#, "users should be a list"),
        (#"{"users": [{"name": "alice"}]}"#, "users[0].webAuthToken is missing"),
        (#"{"users": [{"name": "alice", "webAuthToken": 7}]}"#, "users[0].webAuthToken should be a string"),
    ])
    func aMalformedFileNamesTheFileAndWhereItIsWrong(contents: String, detail: String) throws {
        let directory = try folder()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(contents.utf8).write(to: UsersFile.url(in: directory))
        let error = #expect(throws: UsersFileError.self) { _ = try UsersFile.read(from: directory) }
        let text = try #require(error).description
        #expect(text.hasPrefix("\(UsersFile.url(in: directory).path) is not a users file"), "\(text)")
        #expect(text.hasSuffix(": \(detail)"), "\(text)")
        // Reading never changes the file.
        #expect(try String(contentsOf: UsersFile.url(in: directory), encoding: .utf8) == contents)
    }
}
