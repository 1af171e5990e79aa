import Foundation
import SyncCore
import SyncServer

/// The server benchmarks of the sync-core issue.
struct BenchmarkSuite {
    var largeZoneRecords: Int
    var saveRecords: Int
    var routingSaves: Int
    var burstSaves: Int

    let database = DatabaseID(container: "bench", scope: .private)
    let caller = Caller(user: "bench", deviceID: "bench-device")
    let zoneID = RecordZoneID(zoneName: "Bench", ownerName: "bench")

    /// Each of the writer's other devices gets one push per coalescing window
    /// the burst touches; a burst shorter than one window still gives each one push.
    static func expectedBurstPushes(saves: Int, otherDevices: Int) -> Int {
        let window = max(1, Int(PushConfiguration().coalescingWindow))
        return otherDevices * ((saves + window - 1) / window)
    }

    func run() async throws -> BenchmarkResults {
        var results = BenchmarkResults()

        // Memory first, in a clean process state.
        let baseline = ProcessMemory.residentBytes()
        ProcessMemory.resetPeak()
        let large = try makeEngine(records: largeZoneRecords)
        let peak = ProcessMemory.peakResidentBytes()
        let bytesPerRecord = Double(max(0, peak - baseline)) / Double(largeZoneRecords)

        // Full fetch from a nil token.
        let fullStart = ContinuousClock.now
        var fetched = 0
        var token: ServerChangeToken?
        repeat {
            let batch = try large.fetchRecordZoneChanges(caller: caller, database: database, [ZoneChangesRequest(zoneID: zoneID, previousServerChangeToken: token)])[0].get()
            fetched += batch.changes.count
            token = batch.serverChangeToken
            if !batch.moreComing { break }
        } while true
        let fullSeconds = ContinuousClock.now.seconds(since: fullStart)
        guard fetched == largeZoneRecords else {
            throw BenchmarkError("the full fetch returned \(fetched) records, expected \(largeZoneRecords)")
        }

        // Fetching 100 changes since a token: small history vs large history.
        let small = try makeEngine(records: 1_000)
        let smallMs = try fetchHundredMs(small)
        let largeMs = try fetchHundredMs(large)

        // Save throughput: engine vs a plain dictionary.
        let (engineRate, dictionaryRate) = try saveRates()

        // records/query: one type among 1,000 vs 1,000,000 records of another.
        let query = try queryFigures(small: small, smallRecords: 1_000, large: large)

        // Push routing and a coalesced burst.
        let push = PushBenchmarkSuite()
        let routing = try push.routingRatio(saves: routingSaves)
        let burst = try push.burst(saves: burstSaves, devices: 100)

        results.figures = [
            BenchmarkFigure(key: "fetch_100_of_1k_ms", label: "fetch 100 changes, 1,000-change history", value: smallMs, unit: "ms", goal: nil),
            BenchmarkFigure(key: "fetch_100_of_1m_ms", label: "fetch 100 changes, \(BenchmarkResults.grouped(largeZoneRecords))-change history", value: largeMs, unit: "ms", goal: nil),
            BenchmarkFigure(key: "fetch_scaling_ratio", label: "  ratio large / small history", value: largeMs / smallMs, unit: "×", goal: .atMost(2)),
            BenchmarkFigure(key: "save_records_per_s", label: "save records through the engine", value: engineRate, unit: "rec/s", goal: .atLeast(300_000)),
            BenchmarkFigure(key: "dictionary_records_per_s", label: "insert the same records into a Dictionary", value: dictionaryRate, unit: "rec/s", goal: nil),
            BenchmarkFigure(key: "save_vs_dictionary_ratio", label: "  ratio engine time / dictionary time", value: dictionaryRate / engineRate, unit: "×", goal: .atMost(6)),
            BenchmarkFigure(key: "full_fetch_records_per_s", label: "full fetch from nil, \(BenchmarkResults.grouped(largeZoneRecords)) records", value: Double(fetched) / fullSeconds, unit: "rec/s", goal: .atLeast(1_000_000)),
            BenchmarkFigure(key: "bytes_per_record", label: "peak resident memory per stored record", value: bytesPerRecord, unit: "B", goal: .atMost(600)),
            BenchmarkFigure(key: "routing_10_subscriptions_s", label: "\(BenchmarkResults.grouped(routingSaves)) saves, 10 non-matching subscriptions", value: routing.few, unit: "s", goal: nil),
            BenchmarkFigure(key: "routing_10k_subscriptions_s", label: "\(BenchmarkResults.grouped(routingSaves)) saves, 10,000 non-matching subscriptions", value: routing.many, unit: "s", goal: nil),
            BenchmarkFigure(key: "routing_ratio_10k_vs_10_subscriptions", label: "  ratio 10,000 / 10 subscriptions", value: routing.many / routing.few, unit: "×", goal: .atMost(1.5)),
            BenchmarkFigure(key: "burst_pushes_delivered", label: "burst: \(BenchmarkResults.grouped(burstSaves)) saves, 1/ms, 100 devices: pushes", value: Double(burst.deliveries), unit: "", goal: nil),
            BenchmarkFigure(key: "burst_pushes_expected", label: "  about one per device per coalescing window", value: Double(Self.expectedBurstPushes(saves: burstSaves, otherDevices: 99)), unit: "", goal: nil),
            BenchmarkFigure(key: "burst_seconds", label: "  burst wall time", value: burst.seconds, unit: "s", goal: nil),
        ]
        results.figures += query
        // Schema checks on saves: with a deployed schema ÷ without schemas.
        results.figures += try await schemaFigures()
        // The fault layer with nothing to inject.
        results.figures += try await FaultBenchmarkSuite(saves: min(saveRecords, 200_000)).run()
        // One change in a large zone, in a device's in-memory store.
        results.figures += try LocalStoreBenchmarkSuite().run()
        // The inspector: 100,000 records at the default --records (a tenth of it), live loop 3 s (0.5 s for small runs).
        results.figures += try await InspectorBenchmarkSuite(
            records: min(100_000, max(1_000, largeZoneRecords / 10)), liveSeconds: largeZoneRecords >= 1_000_000 ? 3 : 0.5
        ).run()
        return results
    }

    func record(_ i: Int) -> Record {
        Record(
            recordID: RecordID(recordName: "r\(i)", zoneID: zoneID), recordType: "Item",
            fields: ["a": .string("alpha\(i % 97)"), "b": .string("beta"), "c": .string("g\(i % 13)")])
    }

    /// An engine with one zone of `records` records saved in requests of 400.
    func makeEngine(records: Int) throws -> ServerEngine {
        let engine = ServerEngine(configuration: ServerConfiguration(seed: 7), clock: VirtualClock())
        try engine.addUser(caller.user)
        _ = try engine.modifyRecordZones(caller: caller, database: database, saving: [zoneID], deleting: [])
        var next = 0
        while next < records {
            let count = min(400, records - next)
            let operations = (next..<(next + count)).map { RecordOperation(type: .forceReplace, record: record($0)) }
            _ = try engine.modifyRecords(caller: caller, database: database, zoneID: zoneID, operations: operations)
            next += count
        }
        return engine
    }

    /// Makes 100 changes after a token and times fetching them (median of many runs).
    func fetchHundredMs(_ engine: ServerEngine) throws -> Double {
        let end = try engine.fetchRecordZoneChanges(caller: caller, database: database, [ZoneChangesRequest(zoneID: zoneID)])
        _ = end
        // The token for "now": list the zone.
        guard let token = try engine.listRecordZones(caller: caller, database: database).first(where: { $0.zoneID == zoneID })?.syncToken else {
            throw BenchmarkError("no token for the benchmark zone")
        }
        let operations = (0..<100).map { RecordOperation(type: .forceReplace, record: record(1_000_000_000 + $0)) }
        _ = try engine.modifyRecords(caller: caller, database: database, zoneID: zoneID, operations: operations)
        let request = [ZoneChangesRequest(zoneID: zoneID, previousServerChangeToken: token)]
        var samples: [Double] = []
        for _ in 0..<9 {
            let start = ContinuousClock.now
            for _ in 0..<200 {
                let batch = try engine.fetchRecordZoneChanges(caller: caller, database: database, request)[0].get()
                guard batch.changes.count == 100 else { throw BenchmarkError("expected 100 changes, got \(batch.changes.count)") }
            }
            samples.append(ContinuousClock.now.seconds(since: start) * 1000 / 200)
        }
        return samples.sorted()[samples.count / 2]
    }

    /// Records per second saved through the engine and inserted into a Dictionary.
    func saveRates() throws -> (engine: Double, dictionary: Double) {
        let all = (0..<saveRecords).map(record)
        let requests = stride(from: 0, to: all.count, by: 400).map { start in
            all[start..<min(start + 400, all.count)].map { RecordOperation(type: .forceReplace, record: $0) }
        }
        var engineBest = Double.infinity
        var dictionaryBest = Double.infinity
        for _ in 0..<3 {
            let engine = ServerEngine(configuration: ServerConfiguration(seed: 9), clock: VirtualClock())
            try engine.addUser(caller.user)
            _ = try engine.modifyRecordZones(caller: caller, database: database, saving: [zoneID], deleting: [])
            let start = ContinuousClock.now
            for operations in requests {
                _ = try engine.modifyRecords(caller: caller, database: database, zoneID: zoneID, operations: operations)
            }
            engineBest = min(engineBest, ContinuousClock.now.seconds(since: start))

            var dictionary: [RecordID: Record] = [:]
            let dictionaryStart = ContinuousClock.now
            for operations in requests {
                for operation in operations { dictionary[operation.record.recordID] = operation.record }
            }
            dictionaryBest = min(dictionaryBest, ContinuousClock.now.seconds(since: dictionaryStart))
            guard dictionary.count == saveRecords else { throw BenchmarkError("dictionary lost records") }
        }
        return (Double(saveRecords) / engineBest, Double(saveRecords) / dictionaryBest)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
