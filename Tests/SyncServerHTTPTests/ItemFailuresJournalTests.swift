import Foundation
import SyncCore
import SyncServer
import Testing
@testable import SyncServerHost
@testable import SyncServerSQLite
@testable import SyncServerHTTP

/// Item failures over HTTP apply only the items that did not fail, and the
/// journal keeps exactly that: a server reopened on its data folder has the
/// same records, whatever the fault plan drew.
@Suite struct ItemFailuresJournalTests {
    let container = "iCloud.com.example.ItemFailures"

    func call(_ operation: String, _ json: String) -> APICall {
        APICall(method: "POST", path: "/database/1/\(container)/development/private/\(operation)", body: Data(json.utf8), user: "alice")
    }

    func names(_ host: ServerHost) async -> [String] {
        let answer = await host.perform(call("changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Notes"}}]}"#))
        let zones = ((try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any])?["zones"] as? [[String: Any]]
        return ((zones?.first?["records"] as? [[String: Any]]) ?? []).compactMap { $0["recordName"] as? String }.sorted()
    }

    @Test func aReopenedServerHasExactlyTheItemsThatWereApplied() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("item-failures-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let options = ServeOptions(dataDirectory: directory, coalescingWindow: 0, seed: 12, quiet: true)
        let (applied, before) = try await {
            let host = try await ServerHost.start(options: options)
            #expect(await host.perform(call("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#)).status == 200)
            host.addFaults(FaultPlan([FaultRule(.itemFailures(code: .zoneBusy, retryAfter: 1), frequency: FaultFrequency(times: 1))]))
            let operations = (0..<10).map {
                #"{"operationType":"forceReplace","record":{"recordName":"r\#($0)","recordType":"Note","fields":{"n":{"value":\#($0)}}}}"#
            }
            let faulted = await host.performWithFaults(
                call("records/modify", #"{"zoneID":{"zoneName":"Notes"},"atomic":false,"operations":[\#(operations.joined(separator: ","))]}"#))
            #expect(faulted.note?.contains("some items failed with ZONE_BUSY") == true)
            let records = ((try? JSONSerialization.jsonObject(with: faulted.answer.body)) as? [String: Any])?["records"] as? [[String: Any]] ?? []
            #expect(records.count == 10)
            let applied = records.filter { $0["serverErrorCode"] == nil }.compactMap { $0["recordName"] as? String }.sorted()
            #expect(applied.count < 10 && !applied.isEmpty, "\(records)")
            return (applied, await names(host))
        }()
        #expect(before == applied)
        let reopened = try await ServerHost.start(options: options)
        #expect(await names(reopened) == applied)
    }
}
