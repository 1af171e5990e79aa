import Foundation
import SyncCore
import SyncServer

extension BenchmarkSuite {
    /// What schema checks cost a save: records saved per second into
    /// production with a deployed schema that fits them (every field looked
    /// up and type-checked), divided by the same saves with schemas off
    /// (``ServerConfiguration/checksSchemas`` false), in the same run, timed
    /// request by request against each other over seven rounds
    /// (``PairedRequestTiming``).
    func schemaFigures() async throws -> [BenchmarkFigure] {
        let count = min(saveRecords, 200_000)
        let all = (0..<count).map(record)
        let requests = stride(from: 0, to: all.count, by: 400).map { start in
            all[start..<min(start + 400, all.count)].map { RecordOperation(type: .forceReplace, record: $0) }
        }
        let production = DatabaseID(container: database.container, environment: .production, scope: database.scope)
        let schema = try SchemaLanguage.parse("DEFINE SCHEMA RECORD TYPE Item (a STRING QUERYABLE, b STRING, c STRING SORTABLE);")
        func engine(checking: Bool) throws -> ServerEngine {
            let engine = ServerEngine(configuration: ServerConfiguration(seed: 9, checksSchemas: checking), clock: VirtualClock())
            try engine.addUser(caller.user)
            if checking { try engine.importSchema(schema, container: database.container, environment: .production) }
            _ = try engine.modifyRecordZones(caller: caller, database: production, saving: [zoneID], deleting: [])
            return engine
        }
        let (with, without) = try await PairedRequestTiming.bestTotals(
            rounds: 7, requests: requests.count, makeServers: { (try engine(checking: true), try engine(checking: false)) },
            send: { engine, index in
                for result in try engine.modifyRecords(caller: caller, database: production, zoneID: zoneID, operations: requests[index]) {
                    _ = try result.get()
                }
            })
        let withRate = Double(count) / with
        let withoutRate = Double(count) / without
        return [
            BenchmarkFigure(key: "schema_save_records_per_s", label: "save records into production with a deployed schema", value: withRate, unit: "rec/s", goal: nil),
            BenchmarkFigure(key: "no_schema_save_records_per_s", label: "the same saves with schemas off", value: withoutRate, unit: "rec/s", goal: nil),
            BenchmarkFigure(key: "schema_save_ratio", label: "  ratio with schema / without", value: withRate / withoutRate, unit: "×", goal: .atLeast(0.95)),
        ]
    }
}
