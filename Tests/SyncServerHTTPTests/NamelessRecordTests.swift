import Foundation
@testable import SyncServerHost
@testable import SyncServerSQLite
@testable import SyncServerHTTP
import Testing

/// A record saved without `recordName` gets a new UUID name, returned in the
/// answer, as Apple's servers give it; a replayed journal makes the same one.
@Suite struct NamelessRecordTests {
    let container = "iCloud.com.example.Nameless"

    func options(_ directory: URL) -> ServeOptions {
        ServeOptions(dataDirectory: directory, coalescingWindow: 0, seed: 9, quiet: true)
    }

    func post(_ host: ServerHost, _ operation: String, _ json: String) async -> APIAnswer {
        await host.perform(APICall(method: "POST", path: "/database/1/\(container)/development/private/\(operation)", body: Data(json.utf8), user: "alice"))
    }

    func records(_ answer: APIAnswer) -> [[String: Any]] {
        ((try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any])?["records"] as? [[String: Any]] ?? []
    }

    @Test func aSaveWithoutARecordNameGetsAUUIDNameThatAReplayMakesAgain() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nameless-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var names: [String] = []
        do {
            // No clean stop: the next start replays the journal's rows.
            let host = try await ServerHost.start(options: options(directory))
            #expect(await post(host, "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#).status == 200)
            let saved = await post(
                host, "records/modify",
                #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"create","record":{"recordType":"Note","fields":{"title":{"value":"a"}}}},{"operationType":"forceReplace","record":{"recordType":"Note"}},{"operationType":"create","record":{"recordName":"named","recordType":"Note"}}]}"#)
            #expect(saved.status == 200, "\(String(decoding: saved.body, as: UTF8.self))")
            let items = records(saved)
            names = items.compactMap { $0["recordName"] as? String }
            #expect(names.count == 3 && names[2] == "named")
            for name in names.prefix(2) {
                let uuid = try #require(UUID(uuidString: name), "\(name)")
                #expect(uuid.uuidString == name)
            }
            #expect(names[0] != names[1])
            #expect(items[0]["recordType"] as? String == "Note" && items[0]["recordChangeTag"] is String)
            // A delete must name its record.
            let deleted = await post(host, "records/modify", #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"delete","record":{}}]}"#)
            let failure = records(deleted).first
            #expect(failure?["serverErrorCode"] as? String == "BAD_REQUEST", "\(String(decoding: deleted.body, as: UTF8.self))")
        }
        let host = try await ServerHost.start(options: options(directory))
        defer { Task { await host.stop() } }
        let list = names.map { #"{"recordName":"\#($0)"}"# }.joined(separator: ",")
        let found = records(await post(host, "records/lookup", #"{"zoneID":{"zoneName":"Notes"},"records":[\#(list)]}"#))
        #expect(found.compactMap { $0["recordName"] as? String } == names)
        #expect(found.allSatisfy { $0["serverErrorCode"] == nil })
        #expect((found.first?["fields"] as? [String: Any])?["title"] != nil)
    }
}
