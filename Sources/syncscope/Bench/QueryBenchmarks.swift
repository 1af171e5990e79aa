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
        return [
            BenchmarkFigure(
                key: "query_100_among_1k_ms", label: "records/query: 100 of a type among \(BenchmarkResults.grouped(smallRecords)) others",
                value: smallMs, unit: "ms", goal: nil),
            BenchmarkFigure(
                key: "query_100_among_1m_ms", label: "records/query: 100 of a type among \(BenchmarkResults.grouped(largeZoneRecords)) others",
                value: largeMs, unit: "ms", goal: nil),
            BenchmarkFigure(key: "query_scaling_ratio", label: "  ratio large / small zone", value: largeMs / smallMs, unit: "×", goal: .atMost(2)),
        ]
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
            let start = Clock.now
            for _ in 0..<200 {
                let result = try engine.queryRecords(caller: caller, database: database, request)
                guard result.records.count == 100, result.records.first?.recordID.recordName == "target-99" else {
                    throw BenchmarkError("the query returned \(result.records.count) records, expected the 100 targets, highest rank first")
                }
            }
            samples.append(Clock.now.seconds(since: start) * 1000 / 200)
        }
        return samples.sorted()[samples.count / 2]
    }
}
