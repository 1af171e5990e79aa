import Foundation
import SyncCore
import SyncServer

/// `records/query` cost: a query for the 100 records of one type must cost
/// about the same whether the zone also holds 1,000 or 1,000,000 records of
/// other types (the engine keeps record names by type).
extension BenchmarkSuite {
    /// Adds 100 `Target` records to each engine's zone (which holds only
    /// `Item` records) and times the same query on both, median of many runs.
    func queryFigures(small: ServerEngine, smallRecords: Int, large: ServerEngine) throws -> [BenchmarkFigure] {
        let smallMs = try queryHundredMs(small)
        let largeMs = try queryHundredMs(large)
        let nextPage = try continuationFigures(small: small, smallRecords: smallRecords, large: large)
        return [
            BenchmarkFigure(
                key: "query_100_among_1k_ms", label: "records/query: 100 of a type among \(BenchmarkResults.grouped(smallRecords)) others",
                value: smallMs, unit: "ms", goal: nil),
            BenchmarkFigure(
                key: "query_100_among_1m_ms", label: "records/query: 100 of a type among \(BenchmarkResults.grouped(largeZoneRecords)) others",
                value: largeMs, unit: "ms", goal: nil),
            BenchmarkFigure(key: "query_scaling_ratio", label: "  ratio large / small zone", value: largeMs / smallMs, unit: "×", goal: .atMost(2)),
        ] + nextPage
    }

    /// A later page of a paged query costs what it returns: a continuation
    /// page of 100 `Item` records (`c` IN three of its 13 values, sorted by
    /// `a`) from a query that matched 3/13 of the 1,000 vs of the 1,000,000
    /// records; the first page, which reads and sorts the matches, is not timed.
    func continuationFigures(small: ServerEngine, smallRecords: Int, large: ServerEngine) throws -> [BenchmarkFigure] {
        let smallMs = try continuationPageMs(small)
        let largeMs = try continuationPageMs(large)
        return [
            BenchmarkFigure(
                key: "query_next_page_of_1k_ms", label: "records/query: page 2 of 100, 3/13 of \(BenchmarkResults.grouped(smallRecords)) match",
                value: smallMs, unit: "ms", goal: nil),
            BenchmarkFigure(
                key: "query_next_page_of_1m_ms", label: "records/query: page 2 of 100, 3/13 of \(BenchmarkResults.grouped(largeZoneRecords)) match",
                value: largeMs, unit: "ms", goal: nil),
            BenchmarkFigure(key: "query_next_page_ratio", label: "  ratio large / small zone", value: largeMs / smallMs, unit: "×", goal: .atMost(2)),
        ]
    }

    private func continuationPageMs(_ engine: ServerEngine) throws -> Double {
        let query = RecordQuery(
            recordType: "Item", predicate: QueryPredicate([QueryFilter("c", .in, .list(.string, [.string("g1"), .string("g2"), .string("g3")]))]),
            sortBy: [RecordQuery.Sort("a")])
        let first = try engine.queryRecords(caller: caller, database: database, QueryRequest(query: query, zoneID: zoneID, resultsLimit: 100))
        guard let marker = first.continuationMarker else { throw BenchmarkError("a query over many records gave no continuationMarker") }
        // The second page, asked again and again with its marker (a retry gives the same page).
        let request = QueryRequest(query: query, zoneID: zoneID, resultsLimit: 100, continuationMarker: marker)
        var samples: [Double] = []
        for _ in 0..<9 {
            let start = ContinuousClock.now
            for _ in 0..<200 {
                let page = try engine.queryRecords(caller: caller, database: database, request)
                guard page.records.count == 100, page.continuationMarker != nil else {
                    throw BenchmarkError("the continuation page returned \(page.records.count) records, expected 100 and more to come")
                }
            }
            samples.append(ContinuousClock.now.seconds(since: start) * 1000 / 200)
        }
        return samples.sorted()[samples.count / 2]
    }

    private func queryHundredMs(_ engine: ServerEngine) throws -> Double {
        let targets = (0..<100).map { i in
            RecordOperation(
                type: .forceReplace,
                record: Record(
                    recordID: RecordID(recordName: "target-\(i)", zoneID: zoneID), recordType: "Target",
                    fields: ["rank": .int64(Int64(i)), "group": .string(i % 2 == 0 ? "even" : "odd")]))
        }
        for result in try engine.modifyRecords(caller: caller, database: database, zoneID: zoneID, operations: targets) { _ = try result.get() }
        let request = QueryRequest(
            query: RecordQuery(recordType: "Target", sortBy: [RecordQuery.Sort("rank", ascending: false)]), zoneID: zoneID)
        var samples: [Double] = []
        for _ in 0..<9 {
            let start = ContinuousClock.now
            for _ in 0..<200 {
                let result = try engine.queryRecords(caller: caller, database: database, request)
                guard result.records.count == 100, result.records.first?.recordID.recordName == "target-99" else {
                    throw BenchmarkError("the query returned \(result.records.count) records, expected the 100 targets, highest rank first")
                }
            }
            samples.append(ContinuousClock.now.seconds(since: start) * 1000 / 200)
        }
        return samples.sorted()[samples.count / 2]
    }
}
