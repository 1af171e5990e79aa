import Foundation
import SyncCore
import SyncNetwork

extension HTTPBenchmarkSuite {
    /// `records/query` over HTTP: 100 `Target` records among the zone's
    /// saved records, queried (sorted, one page of 100) by `clients`
    /// concurrent clients, `saves / 10` queries in all, bounded to 10 s.
    func measureQueries(zone: RecordZoneID) async throws -> (queriesPerSecond: Double, p50Ms: Double) {
        let targets = (0..<100).map { i in
            RecordOperation(
                type: .forceReplace,
                record: Record(recordID: RecordID(recordName: "target-\(i)", zoneID: zone), recordType: "Target", fields: ["rank": .int64(Int64(i))]))
        }
        for result in try await service().modifyRecords(in: .private, zoneID: zone, operations: targets) { _ = try result.get() }
        let request = QueryRequest(query: RecordQuery(recordType: "Target", sortBy: [RecordQuery.Sort("rank")]), zoneID: zone, resultsLimit: 100)
        let total = max(clients, saves / 10)
        let perClient = max(1, total / clients)
        let start = Clock.now
        let deadline = start.nanoseconds + UInt64(min(timeLimit, 10) * 1e9)
        let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
            for client in 0..<clients {
                let service = service(device: "bench-reader-\(client)")
                group.addTask {
                    var samples: [Double] = []
                    for _ in 0..<perClient where Clock.now.nanoseconds < deadline {
                        let began = Clock.now
                        let result = try await service.queryRecords(in: .private, request)
                        samples.append(Clock.now.seconds(since: began) * 1000)
                        guard result.records.count == 100 else {
                            throw BenchmarkError("records/query over HTTP returned \(result.records.count) records, expected 100")
                        }
                    }
                    return samples
                }
            }
            var all: [Double] = []
            for try await samples in group { all += samples }
            return all
        }
        return (Double(latencies.count) / Clock.now.seconds(since: start), Self.percentile(latencies, 0.5))
    }
}
