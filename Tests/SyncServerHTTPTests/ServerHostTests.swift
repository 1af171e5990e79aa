import Foundation
import SyncCore
import SyncServer
@testable import SyncServerHost
@testable import SyncServerSQLite
import SyncServerHTTP
import Testing

/// The host without HTTP: calls, the journal, checkpoints and replay.
@Suite struct ServerHostTests {
    let container = "iCloud.com.example.HostTests"

    func options(_ directory: URL?, checkpointEvery: Int = 20_000, retention: Int? = nil) -> ServeOptions {
        ServeOptions(dataDirectory: directory, retention: retention, coalescingWindow: 0, seed: 11, quiet: true, checkpointEvery: checkpointEvery)
    }

    func post(_ host: ServerHost, _ operation: String, _ json: String, user: String = "alice") async -> APIAnswer {
        await host.perform(APICall(method: "POST", path: "/database/1/\(container)/development/private/\(operation)", body: Data(json.utf8), user: user))
    }

    func object(_ answer: APIAnswer) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any] ?? [:]
    }

    func export(_ host: ServerHost) async -> Data {
        let answer = await host.perform(APICall(method: "POST", path: "/admin/1/\(container)/development/export", body: Data("{}".utf8), isServerAdmin: true))
        #expect(answer.status == 200)
        return answer.body
    }

    /// Saves some records and returns a zone token from the middle.
    func populate(_ host: ServerHost) async throws -> String {
        #expect(await post(host, "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#).status == 200)
        var token = ""
        for i in 0..<30 {
            let saved = await post(host, "records/modify", #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"forceReplace","record":{"recordName":"r\#(i % 12)","recordType":"Note","fields":{"n":{"value":\#(i)}}}}]}"#)
            #expect(saved.status == 200)
            if i == 10 {
                let zones = object(await post(host, "changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Notes"}}]}"#))["zones"] as? [[String: Any]]
                token = try #require(zones?.first?["syncToken"] as? String)
            }
        }
        return token
    }

    func changes(_ host: ServerHost, since token: String) async -> String {
        String(decoding: await post(host, "changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Notes"},"syncToken":"\#(token)"}]}"#).body, as: UTF8.self)
    }

    @Test(arguments: [20_000, 7])
    func aHostReopenedOnItsDataFolderIsTheSameServer(checkpointEvery: Int) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("host-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        // The first host is gone (its data folder unlocked) before the second opens the folder.
        let (token, answer, state, users) = try await {
            let first = try await ServerHost.start(options: options(directory, checkpointEvery: checkpointEvery))
            let token = try await populate(first)
            return (token, await changes(first, since: token), await export(first), first.users)
        }()

        let second = try await ServerHost.start(options: options(directory, checkpointEvery: checkpointEvery))
        #expect(second.users == users)
        #expect(await changes(second, since: token) == answer)
        #expect(await export(second) == state)
        #expect(!answer.contains("serverErrorCode"))
    }

    @Test func changingTheRetentionOnRestartKeepsTheStateAndItsTokens() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("host-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (token, answer) = try await {
            let first = try await ServerHost.start(options: options(directory))
            let token = try await populate(first)
            return (token, await changes(first, since: token))
        }()
        let second = try await ServerHost.start(options: options(directory, retention: 1000))
        #expect(second.startupReport.contains("retention 1000"))
        #expect(await changes(second, since: token) == answer)
    }

    @Test func aDataFolderInUseByAnotherHostIsRefusedUntilThatHostIsGone() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("host-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var first: ServerHost? = try await ServerHost.start(options: options(directory))
        _ = try await populate(try #require(first))
        do {
            _ = try await ServerHost.start(options: options(directory))
            Issue.record("a second host opened a data folder in use")
        } catch let error as ServeError {
            #expect(error.description.contains("Another syncscope serve (process \(getpid())) is using the data folder \(directory.path)"))
            #expect(error.description.contains("--in-memory"))
        }
        first = nil
        // Its lock went with it: the folder opens again, with its state.
        let second = try await ServerHost.start(options: options(directory))
        #expect(String(decoding: await post(second, "zones/list", "{}").body, as: UTF8.self).contains("Notes"))
    }

    @Test func aDataFolderThatIsAFileIsNamedAsSuch() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("host-file-\(UUID().uuidString)")
        try Data("x".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        await #expect {
            try await ServerHost.start(options: options(file))
        } throws: { error in
            (error as? ServeError)?.description == "Cannot open the data folder \(file.path): it is a file, not a folder. Pass another --data folder, or --in-memory."
        }
    }

    /// `--data /etc/hostname/sub`: a folder inside a file. The sentence names
    /// the file, not "NSCocoaErrorDomain error 512".
    @Test func aDataFolderInsideAFileNamesTheFile() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("host-file-\(UUID().uuidString)")
        try Data("x".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let inside = file.appendingPathComponent("sub")
        await #expect {
            try await ServerHost.start(options: options(inside))
        } throws: { error in
            let text = (error as? ServeError)?.description ?? "\(error)"
            return text == "Cannot open the data folder \(inside.path): \(file.path) is a file, not a folder, so no folder can be made inside it. Pass another --data folder, or --in-memory."
                && !text.contains("NSCocoaErrorDomain")
        }
    }

    @Test func anImportFileThatIsNotJSONIsNamedAsAFile() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("import-\(UUID().uuidString).json")
        try Data("not json".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        var settings = options(nil)
        settings.importFile = file
        await #expect {
            try await ServerHost.start(options: settings)
        } throws: { error in
            let text = (error as? ServeError)?.description ?? ""
            return text.hasPrefix("Cannot import \(file.path) (a state file from `syncscope client export`): The file is not valid") && !text.contains("request")
        }
    }

    @Test func anInMemoryHostKeepsNothing() async throws {
        let first = try await ServerHost.start(options: options(nil))
        _ = try await populate(first)
        let second = try await ServerHost.start(options: options(nil))
        #expect(String(decoding: await post(second, "zones/list", "{}").body, as: UTF8.self).contains("Notes") == false)
        // The same seed gives the same users and tokens.
        #expect(second.users == first.users)
    }

    @Test func internalPathsAreForTheJournalOnlyAndUnknownPathsAre404() async throws {
        let host = try await ServerHost.start(options: options(nil))
        let unknown = await host.perform(APICall(method: "POST", path: "/v2/whatever", user: "alice"))
        #expect(unknown.status == 404 && unknown.wireError?.serverErrorCode == "NOT_FOUND")
        let getOnPost = await host.perform(APICall(method: "GET", path: "/database/1/\(container)/development/private/records/modify", user: "alice"))
        #expect(getOnPost.status == 405 && getOnPost.wireError?.reason.contains("POST") == true)
        // A call under /internal/ that the server did not make itself goes nowhere.
        let users = host.users
        let forged = await host.perform(APICall(method: "POST", path: "/internal/addUser", body: Data(#"{"name":"mallory"}"#.utf8), user: "alice"))
        #expect(forged.status == 404)
        #expect(host.users == users)
        // A user's web auth token does not make whole-server admin calls.
        let reset = await host.perform(APICall(method: "POST", path: "/admin/1/\(container)/development/reset", body: Data("{}".utf8), user: "alice"))
        #expect(reset.status == 403 && reset.wireError?.reason.contains("admin token") == true)
    }
}
