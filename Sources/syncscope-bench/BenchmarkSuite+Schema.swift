import Foundation
import SyncCore
import SyncServer

extension BenchmarkSuite {
    /// What schema checks cost a save: records saved per second into
    /// production with a deployed schema that fits them (every field looked
    /// up and type-checked), divided by the same saves with schemas off
    /// (``ServerConfiguration/checksSchemas`` false), in the same run. Seven
    /// rounds; in each, the two engines take each request in turn (in an
    /// order that alternates), and each request counts with its best time of
    /// the seven, so that a slow moment of the machine falls on both alike
    /// and on neither's figure: a ratio this close to 1 cannot be told apart
    /// from timing one engine after the other, whose runs this VM makes up
    /// to 15% apart.
    func schemaFigures() throws -> [BenchmarkFigure] {
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
        func seconds(saving operations: [RecordOperation], into engine: ServerEngine) throws -> Double {
            let start = ContinuousClock.now
            for result in try engine.modifyRecords(caller: caller, database: production, zoneID: zoneID, operations: operations) {
                _ = try result.get()
            }
            return ContinuousClock.now.seconds(since: start)
        }
        // Each request's best time over the rounds, for each engine.
        var with = [Double](repeating: .infinity, count: requests.count)
        var without = with
        for round in 0..<7 {
            let checking = try engine(checking: true)
            let plain = try engine(checking: false)
            for (index, operations) in requests.enumerated() {
                if (index + round).isMultiple(of: 2) {
                    without[index] = min(without[index], try seconds(saving: operations, into: plain))
                    with[index] = min(with[index], try seconds(saving: operations, into: checking))
                } else {
                    with[index] = min(with[index], try seconds(saving: operations, into: checking))
                    without[index] = min(without[index], try seconds(saving: operations, into: plain))
                }
            }
        }
        let withRate = Double(count) / with.reduce(0, +)
        let withoutRate = Double(count) / without.reduce(0, +)
        return [
            BenchmarkFigure(key: "schema_save_records_per_s", label: "save records into production with a deployed schema", value: withRate, unit: "rec/s", goal: nil),
            BenchmarkFigure(key: "no_schema_save_records_per_s", label: "the same saves with schemas off", value: withoutRate, unit: "rec/s", goal: nil),
            BenchmarkFigure(key: "schema_save_ratio", label: "  ratio with schema / without", value: withRate / withoutRate, unit: "×", goal: .atLeast(0.95)),
        ]
    }
}
