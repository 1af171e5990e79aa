import Foundation
import SyncCore
import SyncClient

/// What a device pays, in the in-memory store, for one change in a large
/// zone: applying a one-record batch (the record and the zone token), and
/// reading the record at an offset in record-name order (how the demo writer
/// picks the note to edit). Each is measured in a 1,000-record zone and a
/// 100,000-record zone in the same run; the ratios show whether the cost grows
/// with the zone.
struct LocalStoreBenchmarkSuite {
    var batches = 2_000

    let zoneID = RecordZoneID(zoneName: "Bench", ownerName: "bench")

    func run() throws -> [BenchmarkFigure] {
        var apply: [Int: Double] = [:]
        var pick: [Int: Double] = [:]
        for size in [1_000, 100_000] {
            let store = try filledStore(records: size)
            var bestApply = Double.infinity
            var bestPick = Double.infinity
            for round in 0..<3 {
                let start = ContinuousClock.now
                for i in 0..<batches {
                    var batch = StoreBatch(scope: .private)
                    batch.savedRecords = [record((i * 7_919 + round) % size, edit: i)]
                    batch.zoneTokens = [ZoneTokenChange(zoneID: zoneID, update: .set(ServerChangeToken(rawValue: "z\(round)-\(i)")))]
                    try store.apply(batch)
                }
                bestApply = min(bestApply, ContinuousClock.now.seconds(since: start) / Double(batches))
                let pickStart = ContinuousClock.now
                for i in 0..<batches {
                    guard try store.record(atOffset: (i * 7_919 + round) % size, in: .private, zoneID: zoneID) != nil else {
                        throw BenchmarkError("the store has no record at offset \((i * 7_919 + round) % size) of \(size)")
                    }
                }
                bestPick = min(bestPick, ContinuousClock.now.seconds(since: pickStart) / Double(batches))
            }
            apply[size] = bestApply * 1e6
            pick[size] = bestPick * 1e6
        }
        let apply1k = apply[1_000] ?? 0, apply100k = apply[100_000] ?? 0
        let pick1k = pick[1_000] ?? 0, pick100k = pick[100_000] ?? 0
        return [
            BenchmarkFigure(key: "local_store_apply_us_1k", label: "in-memory store: one-record batch, 1,000 records", value: apply1k, unit: "µs", goal: nil),
            BenchmarkFigure(key: "local_store_apply_us_100k", label: "in-memory store: one-record batch, 100,000 records", value: apply100k, unit: "µs", goal: nil),
            BenchmarkFigure(key: "local_store_apply_ratio_100k_vs_1k", label: "  ratio 100,000 / 1,000 records", value: apply100k / apply1k, unit: "×", goal: nil),
            BenchmarkFigure(key: "local_store_record_at_offset_us_1k", label: "in-memory store: record at offset, 1,000 records", value: pick1k, unit: "µs", goal: nil),
            BenchmarkFigure(key: "local_store_record_at_offset_us_100k", label: "in-memory store: record at offset, 100,000 records", value: pick100k, unit: "µs", goal: nil),
        ]
    }

    private func record(_ i: Int, edit: Int? = nil) -> Record {
        Record(
            recordID: RecordID(recordName: "note-\(i)", zoneID: zoneID), recordType: "Note",
            fields: ["title": .string("Note \(i)"), "body": .string(edit.map { "edit \($0)" } ?? "first")])
    }

    private func filledStore(records: Int) throws -> InMemoryLocalStore {
        let store = InMemoryLocalStore()
        var batch = StoreBatch(scope: .private)
        batch.zonesNeedingFetch = [zoneID]
        batch.savedRecords = (0..<records).map { record($0) }
        try store.apply(batch)
        return store
    }
}
