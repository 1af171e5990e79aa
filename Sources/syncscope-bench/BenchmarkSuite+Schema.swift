import Foundation
import SyncCore
import SyncServer

extension BenchmarkSuite {
    /// What schema checks cost a save: records saved per second into
    /// production with a deployed schema that fits them (every field looked
    /// up and type-checked), divided by the same saves with schemas off
    /// (``ServerConfiguration/checksSchemas`` false), in the same run, best
    /// of seven each, interleaved so that machine noise falls on both alike.
    func schemaFigures() throws -> [BenchmarkFigure] {
        let count = min(saveRecords, 200_000)
        let all = (0..<count).map(record)
        let requests = stride(from: 0, to: all.count, by: 400).map { start in
            all[start..<min(start + 400, all.count)].map { RecordOperation(type: .forceReplace, record: $0) }
        }
        let production = DatabaseID(container: database.container, environment: .production, scope: database.scope)
        let schema = try SchemaLanguage.parse("DEFINE SCHEMA RECORD TYPE Item (a STRING QUERYABLE, b STRING, c STRING SORTABLE);")
        func seconds(checking: Bool) throws -> Double {
            let engine = ServerEngine(configuration: ServerConfiguration(seed: 9, checksSchemas: checking), clock: VirtualClock())
            try engine.addUser(caller.user)
            if checking { try engine.importSchema(schema, container: database.container, environment: .production) }
            _ = try engine.modifyRecordZones(caller: caller, database: production, saving: [zoneID], deleting: [])
            let start = ContinuousClock.now
            for operations in requests {
                for result in try engine.modifyRecords(caller: caller, database: production, zoneID: zoneID, operations: operations) {
                    _ = try result.get()
                }
            }
            return ContinuousClock.now.seconds(since: start)
        }
        // Best of seven each, in rounds that alternate which goes first, so
        // that neither always runs on the heap the other just freed.
        var with = Double.infinity
        var without = Double.infinity
        for round in 0..<7 {
            for checking in round.isMultiple(of: 2) ? [false, true] : [true, false] {
                let time = try seconds(checking: checking)
                if checking { with = min(with, time) } else { without = min(without, time) }
            }
        }
        let withRate = Double(count) / with
        let withoutRate = Double(count) / without
        return [
            BenchmarkFigure(key: "schema_save_records_per_s", label: "save records into production with a deployed schema", value: withRate, unit: "rec/s", goal: nil),
            BenchmarkFigure(key: "no_schema_save_records_per_s", label: "the same saves with schemas off", value: withoutRate, unit: "rec/s", goal: nil),
            BenchmarkFigure(key: "schema_save_ratio", label: "  ratio with schema / without", value: withRate / withoutRate, unit: "×", goal: .atLeast(0.95)),
        ]
    }
}
