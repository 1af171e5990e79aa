import Foundation
import SyncCore
import SyncServer
@testable import SyncServerHost
@testable import SyncServerSQLite
import SyncServerHTTP
import Testing

/// `records/query` paging through the host, as HTTP hands calls over:
/// records changing between pages, and a marker outstanding across a restart.
@Suite struct QueryPagingHTTPTests {
    let container = "iCloud.com.example.QueryPaging"

    func options(_ directory: URL?) -> ServeOptions {
        ServeOptions(dataDirectory: directory, coalescingWindow: 0, seed: 3, quiet: true)
    }

    func call(_ host: ServerHost, _ operation: String, _ json: String) async -> (status: Int, json: [String: Any], text: String) {
        let answer = await host.perform(APICall(
            method: "POST", path: "/database/1/\(container)/development/private/\(operation)", body: Data(json.utf8), user: "alice"))
        let object = (try? JSONSerialization.jsonObject(with: answer.body)) as? [String: Any] ?? [:]
        return (answer.status, object, String(decoding: answer.body, as: UTF8.self))
    }

    func populate(_ host: ServerHost) async {
        #expect(await call(host, "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#).status == 200)
        let operations = (0..<12).map { i in
            #"{"operationType":"create","record":{"recordName":"n\#(i)","recordType":"Note","fields":{"rank":{"value":\#(i),"type":"INT64"}}}}"#
        }.joined(separator: ",")
        #expect(await call(host, "records/modify", #"{"zoneID":{"zoneName":"Notes"},"operations":[\#(operations)]}"#).status == 200)
    }

    func page(_ host: ServerHost, marker: String?) async -> (status: Int, names: [String], marker: String?, json: [String: Any]) {
        let markerJSON = marker.map { #","continuationMarker":"\#($0)""# } ?? ""
        let answer = await call(
            host, "records/query",
            #"{"zoneID":{"zoneName":"Notes"},"resultsLimit":5,"query":{"recordType":"Note","sortBy":[{"fieldName":"rank"}]}\#(markerJSON)}"#)
        let names = (answer.json["records"] as? [[String: Any]] ?? []).compactMap { $0["recordName"] as? String }
        return (answer.status, names, answer.json["continuationMarker"] as? String, answer.json)
    }

    func setRank(_ host: ServerHost, _ name: String, _ rank: Int) async {
        let saved = await call(
            host, "records/modify",
            #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"forceUpdate","record":{"recordName":"\#(name)","recordType":"Note","fields":{"rank":{"value":\#(rank),"type":"INT64"}}}}]}"#)
        #expect(saved.status == 200, "\(saved.text)")
    }

    @Test func recordsChangingSortPositionBetweenPagesComeOnceEach() async throws {
        let host = try await ServerHost.start(options: options(nil))
        await populate(host)
        let first = await page(host, marker: nil)
        #expect(first.names == ["n0", "n1", "n2", "n3", "n4"])
        await setRank(host, "n0", 100)  // returned: now sorts last
        await setRank(host, "n11", -1)  // not yet returned: now sorts first
        let second = await page(host, marker: first.marker)
        let third = await page(host, marker: second.marker)
        #expect(third.marker == nil)
        #expect(first.names + second.names + third.names == (0..<12).map { "n\($0)" })
        let n11 = (third.json["records"] as? [[String: Any]])?.first { $0["recordName"] as? String == "n11" }
        #expect(((n11?["fields"] as? [String: Any])?["rank"] as? [String: Any])?["value"] as? Int == -1, "current values")
    }

    @Test func aMarkerOutstandingAcrossARestartHasExpiredAndSaysSo() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("query-paging-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let marker = try await {
            let first = try await ServerHost.start(options: options(directory))
            await populate(first)
            let answer = await page(first, marker: nil)
            #expect(answer.status == 200)
            return try #require(answer.marker)
        }()
        let second = try await ServerHost.start(options: options(directory))
        let stale = await page(second, marker: marker)
        #expect(stale.status == 400)
        #expect(stale.json["serverErrorCode"] as? String == "BAD_REQUEST")
        let reason = stale.json["reason"] as? String ?? ""
        #expect(reason.contains("continuationMarker has expired") && reason.contains("Run the query again without a marker"), "\(reason)")
        // The data survived; the query runs again from its first page.
        let again = await page(second, marker: nil)
        #expect(again.names == ["n0", "n1", "n2", "n3", "n4"])
        #expect(await page(second, marker: again.marker).names == ["n5", "n6", "n7", "n8", "n9"])
    }
}
