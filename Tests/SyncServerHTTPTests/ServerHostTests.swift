import Foundation
import SyncCore
import SyncServer
import SyncServerHTTP
import Testing

/// The host without HTTP: calls, the journal, checkpoints and replay.
@Suite struct ServerHostTests {
    let container = "iCloud.com.example.HostTests"

    func options(_ directory: URL?, checkpointEvery: Int = 20_000, retention: Int? = nil) -> ServeOptions {
        ServeOptions(dataDirectory: directory, retention: retention, coalescingWindow: 0, seed: 11, quiet: true, checkpointEvery: checkpointEvery)
    }

    func post(_ host: ServerHost, _ operation: String, _ json: String, user: String = "alice") -> APIAnswer {
        host.perform(APICall(method: "POST", path: "/database/1/\(container)/development/private/\(operation)", body: Data(json.utf8), user: user))
    }

    func object(_ answer: APIAnswer) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any] ?? [:]
    }

    func export(_ host: ServerHost) -> Data {
        host.perform(APICall(method: "POST", path: "/admin/1/\(container)/development/export", body: Data("{}".utf8), user: "alice")).body
    }

    /// Saves some records and returns a zone token from the middle.
    func populate(_ host: ServerHost) throws -> String {
        #expect(post(host, "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#).status == 200)
        var token = ""
        for i in 0..<30 {
            let saved = post(host, "records/modify", #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"forceReplace","record":{"recordName":"r\#(i % 12)","recordType":"Note","fields":{"n":{"value":\#(i)}}}}]}"#)
            #expect(saved.status == 200)
            if i == 10 {
                let zones = object(post(host, "changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Notes"}}]}"#))["zones"] as? [[String: Any]]
                token = try #require(zones?.first?["syncToken"] as? String)
            }
        }
        return token
    }

    func changes(_ host: ServerHost, since token: String) -> String {
        String(decoding: post(host, "changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Notes"},"syncToken":"\#(token)"}]}"#).body, as: UTF8.self)
    }

    @Test(arguments: [20_000, 7])
    func aHostReopenedOnItsDataFolderIsTheSameServer(checkpointEvery: Int) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("host-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try ServerHost(options: options(directory, checkpointEvery: checkpointEvery))
        let token = try populate(first)
        let answer = changes(first, since: token)
        let state = export(first)

        let second = try ServerHost(options: options(directory, checkpointEvery: checkpointEvery))
        #expect(second.users == first.users)
        #expect(changes(second, since: token) == answer)
        #expect(export(second) == state)
        #expect(!answer.contains("serverErrorCode"))
    }

    @Test func changingTheRetentionOnRestartKeepsTheStateAndItsTokens() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("host-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try ServerHost(options: options(directory))
        let token = try populate(first)
        let answer = changes(first, since: token)
        let second = try ServerHost(options: options(directory, retention: 1000))
        #expect(second.startupReport.contains("retention 1000"))
        #expect(changes(second, since: token) == answer)
    }

    @Test func anInMemoryHostKeepsNothing() throws {
        let first = try ServerHost(options: options(nil))
        _ = try populate(first)
        let second = try ServerHost(options: options(nil))
        #expect(String(decoding: post(second, "zones/list", "{}").body, as: UTF8.self).contains("Notes") == false)
        // The same seed gives the same users and tokens.
        #expect(second.users == first.users)
    }

    @Test func internalPathsAreForTheJournalOnlyAndUnknownPathsAre404() throws {
        let host = try ServerHost(options: options(nil))
        let unknown = host.perform(APICall(method: "POST", path: "/v2/whatever", user: "alice"))
        #expect(unknown.status == 404 && unknown.wireError?.serverErrorCode == "NOT_FOUND")
        let getOnPost = host.perform(APICall(method: "GET", path: "/database/1/\(container)/development/private/records/modify", user: "alice"))
        #expect(getOnPost.status == 400 && getOnPost.wireError?.reason.contains("POST") == true)
    }
}
