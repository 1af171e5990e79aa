import Foundation
import Logging
import Synchronization
import SyncCore
import SyncNetwork
import SyncServerHost
import SyncServerSQLite
import SyncServerHTTP

/// The network-mode figures: saves over HTTP from concurrent clients, zone
/// changes over HTTP, and push latency through the long-poll. Every request
/// goes to a loopback address, and each measurement is bounded in count and time.
struct HTTPBenchmarkSuite {
    var baseURL: URL
    var webAuthToken: String
    var user: String
    var clients: Int
    var saves: Int
    var pushSamples: Int
    /// Stop a measurement after this many seconds, whatever its count.
    var timeLimit: Double = 10

    let container = "iCloud.com.example.SyncScopeBench"

    func service(device: String? = nil) -> HTTPCloudService {
        HTTPCloudService(baseURL: baseURL, webAuthToken: webAuthToken, userRecordName: user, deviceID: device, container: container)
    }

    /// Records in the zone that `changes/zone` pages through.
    var changesZoneRecords = 100_000
    /// `--saves-only`: only the saves figures (for before/after pairs of the save path).
    var savesOnly = false
    /// `--signed-only`: only the signed-request figures.
    var signedOnly = false
    /// A server-to-server key the server takes, for the signed-request figure; `nil`: not measured.
    var serverKeySigner: ServerKeySigner? = nil

    func run() async throws -> BenchmarkResults {
        if signedOnly {
            guard let serverKeySigner else { throw BenchmarkError("--signed-only needs the in-process server's server-to-server key (--http).") }
            var results = BenchmarkResults()
            results.figures = signedFigures(try await measureSignedRequests(serverKeySigner))
            return results
        }
        let zone = RecordZoneID(zoneName: "Bench-\(UInt32.random(in: 0...UInt32.max))", ownerName: user)
        for result in try await service().modifyRecordZones(in: .private, saving: [zone], deleting: []) { _ = try result.get() }

        let ceiling = CeilingServer()
        let (ceilingPort, ceilingTask) = try await ceiling.start()
        defer { ceilingTask.cancel() }
        let saves = try await measureSavesAgainstCeiling(zone: zone, ceilingPort: ceilingPort)
        if savesOnly {
            var results = BenchmarkResults()
            results.figures = saveFigures(saves)
            return results
        }
        let (changes, perPage) = try await measureZoneChangesAgainstCeiling(ceiling: ceiling, ceilingPort: ceilingPort)
        let push = try await measurePushLatency(zone: zone)
        let queries = try await measureQueries(zone: zone)
        var signed: [BenchmarkFigure] = []
        if let serverKeySigner { signed = signedFigures(try await measureSignedRequests(serverKeySigner)) }
        _ = try? await service().modifyRecordZones(in: .private, saving: [], deleting: [zone])

        let zoneSize = BenchmarkResults.grouped(changesZoneRecords)
        var results = BenchmarkResults()
        results.figures = saveFigures(saves) + [
            BenchmarkFigure(
                key: "http_zone_changes_records_per_s", label: "changes/zone pages of \(Int(perPage.rounded())), \(zoneSize)-record zone",
                value: changes.server.perSecond * perPage, unit: "rec/s", goal: nil),
            BenchmarkFigure(
                key: "zone_changes_ceiling_records_per_s", label: "  bare server encoding the same pages", value: changes.ceiling.perSecond * perPage, unit: "rec/s",
                goal: nil),
            BenchmarkFigure(key: "zone_changes_ceiling_ratio", label: "  changes/zone / ceiling", value: changes.ratio, unit: "×", goal: .atLeast(0.8)),
        ] + queryFigures(queries) + [
            BenchmarkFigure(key: "push_latency_p50_ms", label: "push: save sent → long-poll answered, p50 (\(push.count) pushes)", value: Self.percentile(push, 0.5), unit: "ms", goal: .atMost(5)),
            BenchmarkFigure(key: "push_latency_p99_ms", label: "  p99", value: Self.percentile(push, 0.99), unit: "ms", goal: nil),
        ]
        results.figures += signed
        return results
    }

    /// The saves figures, each beside the ceiling measured in the same run.
    func saveFigures(_ saves: Comparison) -> [BenchmarkFigure] {
        [
            BenchmarkFigure(key: "http_saves_per_s", label: "single-record saves over HTTP, \(clients) connections", value: saves.server.perSecond, unit: "saves/s", goal: nil),
            BenchmarkFigure(key: "http_save_p50_ms", label: "  save latency p50", value: saves.server.percentile(0.50), unit: "ms", goal: nil),
            BenchmarkFigure(key: "http_save_p99_ms", label: "  save latency p99", value: saves.server.percentile(0.99), unit: "ms", goal: nil),
            BenchmarkFigure(key: "http_save_ceiling_per_s", label: "bare Hummingbird server, same JSON in and out", value: saves.ceiling.perSecond, unit: "saves/s", goal: nil),
            BenchmarkFigure(key: "http_save_ceiling_p50_ms", label: "  its latency p50", value: saves.ceiling.percentile(0.50), unit: "ms", goal: nil),
            BenchmarkFigure(key: "http_save_ceiling_p99_ms", label: "  its latency p99", value: saves.ceiling.percentile(0.99), unit: "ms", goal: nil),
            BenchmarkFigure(key: "http_save_ceiling_ratio", label: "  saves / ceiling", value: saves.ratio, unit: "×", goal: .atLeast(0.6)),
            BenchmarkFigure(
                key: "http_save_p99_vs_ceiling", label: "  save p99 / ceiling p99", value: saves.server.percentile(0.99) / saves.ceiling.percentile(0.99), unit: "×",
                goal: .atMost(3)),
        ]
    }

    static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
    }

    /// Milliseconds from sending a save to the other device's long-poll
    /// answering with its notification, one sample per push.
    func measurePushLatency(zone: RecordZoneID) async throws -> [Double] {
        let listener = try await service().withNewDevice()
        return try await PushLatencySampling.measure(
            listener: listener, writer: service(device: "bench-push-writer"), zone: zone, subscriptionID: "bench-\(zone.zoneName)",
            recordPrefix: "push-", samples: pushSamples, timeLimit: timeLimit)
    }
}
