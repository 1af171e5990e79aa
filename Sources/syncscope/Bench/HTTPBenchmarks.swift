import Foundation
import Logging
import Synchronization
import SyncCore
import SyncNetwork
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
    var timeLimit: Double = 30

    let container = "iCloud.com.example.SyncScopeBench"

    func service(device: String? = nil) -> HTTPCloudService {
        HTTPCloudService(baseURL: baseURL, webAuthToken: webAuthToken, userRecordName: user, deviceID: device, container: container)
    }

    func run() async throws -> BenchmarkResults {
        let zone = RecordZoneID(zoneName: "Bench-\(UInt32.random(in: 0...UInt32.max))", ownerName: user)
        for result in try await service().modifyRecordZones(in: .private, saving: [zone], deleting: []) { _ = try result.get() }

        let (savesPerSecond, latencies) = try await measureSaves(zone: zone)
        let changesPerSecond = try await measureZoneChanges(zone: zone)
        let push = try await measurePushLatency(zone: zone)
        let queries = try await measureQueries(zone: zone)
        _ = try? await service().modifyRecordZones(in: .private, saving: [], deleting: [zone])

        var results = BenchmarkResults()
        results.figures = [
            BenchmarkFigure(key: "http_saves_per_s", label: "saves over HTTP, \(clients) clients on loopback", value: savesPerSecond, unit: "saves/s", goal: nil),
            BenchmarkFigure(key: "http_save_p50_ms", label: "  save latency p50", value: Self.percentile(latencies, 0.50), unit: "ms", goal: nil),
            BenchmarkFigure(key: "http_save_p99_ms", label: "  save latency p99", value: Self.percentile(latencies, 0.99), unit: "ms", goal: nil),
            BenchmarkFigure(key: "http_zone_changes_records_per_s", label: "changes/zone over HTTP, from no token", value: changesPerSecond, unit: "rec/s", goal: nil),
            BenchmarkFigure(key: "http_query_per_s", label: "records/query over HTTP (100 records a page), \(clients) clients", value: queries.queriesPerSecond, unit: "queries/s", goal: nil),
            BenchmarkFigure(key: "http_query_p50_ms", label: "  query latency p50", value: queries.p50Ms, unit: "ms", goal: nil),
            BenchmarkFigure(key: "push_latency_p50_ms", label: "push: save sent → long-poll answered, p50", value: push, unit: "ms", goal: .atMost(5)),
        ]
        return results
    }

    static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
    }

    /// `saves` single-record saves, spread over `clients` concurrent clients.
    func measureSaves(zone: RecordZoneID) async throws -> (perSecond: Double, latenciesMs: [Double]) {
        let perClient = max(1, saves / clients)
        let start = Clock.now
        let deadline = start.nanoseconds + UInt64(timeLimit * 1e9)
        let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
            for client in 0..<clients {
                let service = service(device: "bench-writer-\(client)")
                group.addTask {
                    var samples: [Double] = []
                    samples.reserveCapacity(perClient)
                    for i in 0..<perClient where Clock.now.nanoseconds < deadline {
                        let record = Record(
                            recordID: RecordID(recordName: "c\(client)-\(i)", zoneID: zone), recordType: "Item",
                            fields: ["a": .string("alpha\(i % 97)"), "n": .int64(Int64(i))])
                        let began = Clock.now
                        let results = try await service.modifyRecords(in: .private, zoneID: zone, operations: [.save(record, policy: .allKeys)])
                        samples.append(Clock.now.seconds(since: began) * 1000)
                        _ = try results[0].get()
                    }
                    return samples
                }
            }
            var all: [Double] = []
            for try await samples in group { all += samples }
            return all
        }
        return (Double(latencies.count) / Clock.now.seconds(since: start), latencies)
    }

    /// Fetches the whole zone from no token, in batches of 400.
    func measureZoneChanges(zone: RecordZoneID) async throws -> Double {
        let service = service()
        let start = Clock.now
        var token: ServerChangeToken?
        var records = 0
        for _ in 0..<10_000 {
            let batch = try await service.fetchRecordZoneChanges(
                in: .private, [ZoneChangesRequest(zoneID: zone, previousServerChangeToken: token, resultsLimit: 400)])[0].get()
            records += batch.changes.count
            token = batch.serverChangeToken
            if !batch.moreComing || Clock.now.seconds(since: start) > timeLimit { break }
        }
        return Double(records) / Clock.now.seconds(since: start)
    }

    /// Milliseconds from sending a save to the other device's long-poll
    /// answering with its notification (the median of `pushSamples`).
    func measurePushLatency(zone: RecordZoneID) async throws -> Double {
        let listener = try await service().withNewDevice()
        try await listener.registerForPushNotifications()
        let subscriptionID = "bench-\(zone.zoneName)"
        for result in try await listener.modifySubscriptions(
            in: .private, saving: [.recordZone(RecordZoneSubscription(subscriptionID: subscriptionID, zoneID: zone))], deleting: []) {
            _ = try result.get()
        }
        _ = try await listener.waitForPushNotifications(timeout: 0)
        let writer = service(device: "bench-push-writer")
        var samples: [Double] = []
        let start = Clock.now
        for i in 0..<pushSamples where Clock.now.seconds(since: start) < timeLimit {
            async let answer = listener.waitForPushNotifications(timeout: 5)
            // Let the poll reach the server first, so the figure is the push path, not a queued notification.
            try await Task.sleep(for: .milliseconds(2))
            let sent = Clock.now
            let record = Record(recordID: RecordID(recordName: "push-\(i)", zoneID: zone), recordType: "Item", fields: ["n": .int64(Int64(i))])
            _ = try await writer.modifyRecords(in: .private, zoneID: zone, operations: [.save(record, policy: .allKeys)])[0].get()
            let notifications = try await answer
            if !notifications.isEmpty { samples.append(Clock.now.seconds(since: sent) * 1000) }
        }
        _ = try? await listener.modifySubscriptions(in: .private, saving: [], deleting: [subscriptionID])
        return Self.percentile(samples, 0.5)
    }
}

/// A throwaway server in this process, on a free loopback port, for `bench --http`.
enum InProcessHTTPServer {
    static func start() async throws -> (url: URL, token: String, user: String, task: Task<Void, any Error>) {
        let host = try ServerHost(options: ServeOptions(
            host: "127.0.0.1", port: 0, dataDirectory: nil, users: ["bench"], coalescingWindow: 0, quiet: true))
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let logger = Logging.Logger(label: "bench")
        let task = Task {
            try await SyncScopeHTTPServer(host: host, logger: logger).run { port in continuation.yield(port) }
        }
        var port: Int?
        for await found in ports {
            port = found
            break
        }
        guard let port, let url = URL(string: "http://127.0.0.1:\(port)"), let account = host.users.first else {
            throw BenchmarkError("the in-process server did not start")
        }
        return (url, account.webAuthToken, account.name, task)
    }
}

