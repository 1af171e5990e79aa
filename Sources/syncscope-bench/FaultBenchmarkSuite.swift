import Foundation
import SyncCore
import SyncServer

/// The cost of the fault layer when it does nothing: save throughput through
/// the in-process service with no fault plan ever installed, and with an
/// empty plan installed (the fault injector exists and is consulted on every
/// call). Both are measured in the same run, timed request by request against
/// each other over six rounds (``PairedRequestTiming``), and their ratio is
/// the figure with a goal.
struct FaultBenchmarkSuite {
    var saves: Int

    let zoneID = RecordZoneID(zoneName: "Bench", ownerName: "bench")

    func run() async throws -> [BenchmarkFigure] {
        let records = (0..<saves).map { i in
            Record(
                recordID: RecordID(recordName: "r\(i)", zoneID: zoneID), recordType: "Item",
                fields: ["a": .string("alpha\(i % 97)"), "b": .string("beta")])
        }
        let requests = stride(from: 0, to: records.count, by: 400).map { start in
            records[start..<min(start + 400, records.count)].map { RecordOperation(type: .forceReplace, record: $0) }
        }
        let (without, empty) = try await PairedRequestTiming.bestTotals(
            rounds: 6, requests: requests.count,
            makeServers: { (try await service(emptyPlan: false), try await service(emptyPlan: true)) },
            send: { service, index in
                _ = try await service.modifyRecords(
                    in: .private, zoneID: zoneID, operations: requests[index], atomic: false, clientChangeTokenData: nil)
            })
        let withoutRate = Double(saves) / without
        let emptyRate = Double(saves) / empty
        return [
            BenchmarkFigure(key: "faults_none_saves_per_s", label: "save through the service, no fault plan", value: withoutRate, unit: "rec/s", goal: nil),
            BenchmarkFigure(key: "faults_empty_saves_per_s", label: "save through the service, empty fault plan", value: emptyRate, unit: "rec/s", goal: nil),
            BenchmarkFigure(key: "faults_empty_vs_none_ratio", label: "  ratio time with empty plan / without", value: empty / without, unit: "×", goal: .atMost(1.02)),
        ]
    }

    /// A fresh server's service for the bench user, with its zone made.
    private func service(emptyPlan: Bool) async throws -> InProcessCloudService {
        let server = SimulatedServer(configuration: ServerConfiguration(seed: 9), clock: VirtualClock())
        if emptyPlan {
            server.addFaults(FaultPlan())
            guard server.withCore({ $0.faults != nil }) else { throw BenchmarkError("the empty fault plan was not installed") }
        }
        let service = try server.connect(user: "bench", deviceID: "bench-device")
        _ = try await service.modifyRecordZones(in: .private, saving: [zoneID], deleting: [])
        return service
    }
}
