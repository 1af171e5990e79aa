import Foundation
import SyncCore
import SyncNetwork

/// `records/query` over HTTP, sent by the lean keep-alive client so that the
/// figure is the server's cost, not a client's.
extension HTTPBenchmarkSuite {
    struct QueryFigures {
        /// First pages: the 100 `Target` records, sorted by `rank`.
        var firstPage: LeanHTTPLoad.Report
        /// A continuation page: 400 records of a paged query's snapshot.
        var continuationPage: LeanHTTPLoad.Report
        /// Records of other types in the zone besides the queried ones.
        var otherRecords: Int
    }

    /// Two measurements in the bench zone (which holds the `Item` records
    /// the save measurement wrote): a query for its 100 `Target` records,
    /// one page sorted by `rank`; and the second page (records 401–800,
    /// sorted) of a query over 2,000 `Paged` records, asked again and again
    /// with the same `continuationMarker` (a marker may be repeated: it
    /// names a position in the query's snapshot).
    func measureQueries(zone: RecordZoneID) async throws -> QueryFigures {
        let service = service()
        let targets = (0..<100).map { i in
            RecordOperation(
                type: .forceReplace,
                record: Record(recordID: RecordID(recordName: "target-\(i)", zoneID: zone), recordType: "Target", fields: ["rank": .int64(Int64(i))]))
        }
        for result in try await service.modifyRecords(in: .private, zoneID: zone, operations: targets) { _ = try result.get() }
        for batch in 0..<5 {
            let paged = (0..<400).map { i in
                RecordOperation(
                    type: .forceReplace,
                    record: Record(
                        recordID: RecordID(recordName: "paged-\(batch)-\(i)", zoneID: zone), recordType: "Paged",
                        fields: ["rank": .int64(Int64(i * 5 + batch)), "title": .string("Paged record \(batch)-\(i)")]))
            }
            for result in try await service.modifyRecords(in: .private, zoneID: zone, operations: paged) { _ = try result.get() }
        }

        // Check the answers once with the full client: what the lean client sends must be what is measured.
        let targetQuery = RecordQuery(recordType: "Target", sortBy: [RecordQuery.Sort("rank")])
        let firstTargets = try await service.queryRecords(in: .private, QueryRequest(query: targetQuery, zoneID: zone, resultsLimit: 100))
        guard firstTargets.records.count == 100, firstTargets.continuationMarker == nil,
              firstTargets.records.first?.recordID.recordName == "target-0"
        else {
            throw BenchmarkError("records/query over HTTP returned \(firstTargets.records.count) records, expected the 100 targets by rank")
        }
        let pagedQuery = RecordQuery(recordType: "Paged", sortBy: [RecordQuery.Sort("rank")])
        let firstPaged = try await service.queryRecords(in: .private, QueryRequest(query: pagedQuery, zoneID: zone, resultsLimit: 400))
        guard let marker = firstPaged.continuationMarker else { throw BenchmarkError("a query over 2,000 records gave no continuationMarker") }
        let secondPaged = try await service.queryRecords(
            in: .private, QueryRequest(query: pagedQuery, zoneID: zone, resultsLimit: 400, continuationMarker: marker))
        guard secondPaged.records.count == 400, secondPaged.records.first?["rank"] == .int64(400) else {
            throw BenchmarkError("the second page returned \(secondPaged.records.count) records, expected 400 from rank 400")
        }
        let countedOther = try await otherRecordCount(zone: zone)

        let zoneJSON = #"{"zoneName":"\#(zone.zoneName)","ownerRecordName":"\#(zone.ownerName)"}"#
        let path = "/database/1/\(container)/development/private/records/query"
        let targetBody = LeanHTTPLoad.requestBytes(
            path: path, token: webAuthToken,
            body: Array(#"{"zoneID":\#(zoneJSON),"resultsLimit":100,"query":{"recordType":"Target","sortBy":[{"fieldName":"rank","ascending":true}]}}"#.utf8))
        let pageBody = LeanHTTPLoad.requestBytes(
            path: path, token: webAuthToken,
            body: Array(#"{"zoneID":\#(zoneJSON),"resultsLimit":400,"continuationMarker":"\#(marker)","query":{"recordType":"Paged","sortBy":[{"fieldName":"rank","ascending":true}]}}"#.utf8))
        let requests = max(clients * 20, saves / 10)
        let first = try await LeanHTTPLoad(
            port: serverPort, connections: clients, requests: requests, timeLimit: min(timeLimit, 10), request: { _, _ in targetBody }
        ).run()
        let continuation = try await LeanHTTPLoad(
            port: serverPort, connections: clients, requests: requests, timeLimit: min(timeLimit, 10), request: { _, _ in pageBody }
        ).run()
        for report in [first, continuation] where report.failures > 0 {
            throw BenchmarkError("\(report.failures) records/query requests failed: \(report.firstFailure ?? "")")
        }
        return QueryFigures(firstPage: first, continuationPage: continuation, otherRecords: countedOther)
    }

    /// The zone's records that are neither `Target` nor `Paged`, counted from its changes.
    private func otherRecordCount(zone: RecordZoneID) async throws -> Int {
        var token: ServerChangeToken?
        var count = 0
        for _ in 0..<100_000 {
            let batch = try await service().fetchRecordZoneChanges(
                in: .private, [ZoneChangesRequest(zoneID: zone, previousServerChangeToken: token, desiredKeys: [], desiredRecordTypes: ["Item"])])[0].get()
            count += batch.changes.count
            token = batch.serverChangeToken
            if !batch.moreComing { break }
        }
        return count
    }
}

extension HTTPBenchmarkSuite {
    /// The `records/query` figures, in the order the table shows them.
    func queryFigures(_ queries: QueryFigures) -> [BenchmarkFigure] {
        let others = BenchmarkResults.grouped(queries.otherRecords)
        return [
            BenchmarkFigure(
                key: "http_query_per_s",
                label: "records/query over HTTP: 100 of a type, \(others) others",
                value: queries.firstPage.perSecond, unit: "queries/s", goal: nil),
            BenchmarkFigure(key: "http_query_p50_ms", label: "  its latency p50", value: queries.firstPage.percentile(0.5), unit: "ms", goal: nil),
            BenchmarkFigure(key: "http_query_p99_ms", label: "  its latency p99", value: queries.firstPage.percentile(0.99), unit: "ms", goal: nil),
            BenchmarkFigure(
                key: "http_query_continuation_records_per_s", label: "  continuation pages of 400 (2,000 matches)",
                value: queries.continuationPage.perSecond * 400, unit: "rec/s", goal: nil),
            BenchmarkFigure(
                key: "http_query_continuation_p50_ms", label: "  its latency p50", value: queries.continuationPage.percentile(0.5), unit: "ms", goal: nil),
        ]
    }
}
