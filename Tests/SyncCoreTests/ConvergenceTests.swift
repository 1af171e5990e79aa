import Foundation
import SyncCore
import SyncClient
import SyncServer
import Testing

/// Random histories of several devices writing, sending, fetching (with
/// interruptions and restarts) while the server compacts its history. After
/// every device has sent its changes and then fetched, each device's cache
/// must equal the server's state.
///
/// Set `SYNCSCOPE_SEED=<n>` to replay one seed (with a trace of its steps and
/// events), `SYNCSCOPE_SEEDS=<count>` to run more seeds than the default 300.
@Suite struct ConvergenceTests {
    struct Divergence: Error, CustomStringConvertible {
        var description: String
    }

    static let seedCount: UInt64 = 300

    @Test func randomizedDevicesConvergeToServerState() async throws {
        let replay = ProcessInfo.processInfo.environment["SYNCSCOPE_SEED"].flatMap { UInt64($0) }
        let count = ProcessInfo.processInfo.environment["SYNCSCOPE_SEEDS"].flatMap { UInt64($0) } ?? Self.seedCount
        let seeds = replay.map { [$0] } ?? Array(1...max(1, count))
        var coverage: [String: Int] = [:]
        for seed in seeds {
            var scenario = try Scenario(seed: seed, traceEvents: replay != nil)
            do {
                try await scenario.run()
                for device in scenario.devices {
                    for event in device.events.events { coverage[Self.kind(of: event), default: 0] += 1 }
                }
            } catch {
                let trace = scenario.trace.suffix(replay == nil ? 25 : Int.max).joined(separator: "\n  ")
                Issue.record("seed \(seed) diverged (replay with SYNCSCOPE_SEED=\(seed)): \(error)\n  last steps:\n  \(trace)")
                if replay == nil { return }
            }
        }
        // The histories must reach the hard paths, or the test proves little.
        if replay == nil {
            for kind in [
                "conflictMerged", "tokenExpired", "fetchInterrupted", "vanishedRecordsRemoved", "zoneDeleted", "pendingChangeDropped",
                "zonePurged", "zoneEncryptedDataReset",
            ] {
                #expect(coverage[kind, default: 0] > 0, "no \(kind) event in \(seeds.count) seeds")
            }
        }
    }

    private static func kind(of event: SyncEvent) -> String {
        String(String(describing: event).prefix { $0 != "(" })
    }
}

private struct Scenario {
    let seed: UInt64
    var random: SeededRandom
    let clock = VirtualClock()
    let server: SimulatedServer
    let admin: InProcessCloudService
    let bobAdmin: InProcessCloudService
    let directory: TemporaryDirectory
    var devices: [TestDevice] = []
    var trace: [String] = []
    let zones = ["Z0", "Z1", "Z2"].map { Fixture.zone($0) }
    let sharedZone = Fixture.zone("Z0")

    let traceEvents: Bool
    var eventsTraced: [Int]

    init(seed: UInt64, traceEvents: Bool = false) throws {
        self.seed = seed
        self.traceEvents = traceEvents
        random = SeededRandom(seed: seed)
        var configuration = ServerConfiguration(seed: seed)
        if random.next() % 4 == 0 { configuration.retention = Int(3 + random.next() % 8) }
        server = SimulatedServer(configuration: configuration, clock: clock)
        admin = try server.connect(user: "alice", deviceID: "admin")
        bobAdmin = try server.connect(user: "bob", deviceID: "bob-admin")
        directory = try TemporaryDirectory()
        let sqliteDevice = seed % 10 == 0 ? 0 : -1
        for (index, (user, device)) in [("alice", "d0"), ("alice", "d1"), ("alice", "d2"), ("bob", "b0")].enumerated() {
            devices.append(try TestDevice(
                service: server.connect(user: user, deviceID: device), clock: clock,
                kind: index == sqliteDevice ? .sqlite : .memory, directory: directory))
        }
        eventsTraced = Array(repeating: 0, count: devices.count)
        if let retention = configuration.retention { trace.append("server retention \(retention)") }
    }

    private mutating func roll(_ n: UInt64) -> Int { Int(random.next() % n) }

    private func name(_ device: TestDevice) -> String { device.service.deviceID ?? "?" }

    mutating func run() async throws {
        try await admin.createZones([sharedZone])
        try await admin.shareZone(sharedZone, with: ["bob"])
        let steps = 40 + roll(40)
        for _ in 0..<steps {
            clock.advance(by: 1_000)
            try await step()
            traceNewEvents()
        }
        // Quiesce: everyone sends, then everyone fetches; no writes in between.
        // A fetch can queue work (an encrypted-data reset queues the local data
        // for upload), so repeat until a round of fetches leaves nothing queued.
        for round in 1...4 {
            for device in devices {
                trace.append("\(name(device)) final send (round \(round))")
                try await device.engine.sendChanges()
                traceNewEvents()
            }
            for device in devices {
                guard try device.store.pendingChanges().isEmpty else {
                    throw ConvergenceTests.Divergence(description: "\(name(device)) still has pending changes after sending: \(try device.store.pendingChanges())")
                }
            }
            for device in devices {
                trace.append("\(name(device)) final fetch (round \(round))")
                try await device.engine.fetchChanges()
                traceNewEvents()
            }
            if try devices.allSatisfy({ try $0.store.pendingChanges().isEmpty }) { break }
        }
        for device in devices {
            guard try device.store.pendingChanges().isEmpty else {
                throw ConvergenceTests.Divergence(description: "\(name(device)) still queues changes after 4 rounds of send-then-fetch: \(try device.store.pendingChanges())")
            }
            try await check(device)
        }
    }

    /// In replay mode, every engine event goes into the trace too.
    private mutating func traceNewEvents() {
        guard traceEvents else { return }
        for (index, device) in devices.enumerated() {
            for event in device.events.events.dropFirst(eventsTraced[index]) {
                trace.append("    [\(name(device))] \(event)")
            }
            eventsTraced[index] = device.events.events.count
        }
    }

    private mutating func step() async throws {
        let index = roll(UInt64(devices.count))
        let device = devices[index]
        let isBob = device.service.userRecordName == "bob"
        let who = name(device)
        let action = roll(100)
        switch action {
        case 0..<34:
            let zone = isBob ? sharedZone : zones[roll(UInt64(zones.count))]
            let id = Fixture.id("r\(roll(6))", in: zone)
            var record = try device.engine.record(id) ?? Record(recordID: id, recordType: "Note")
            record["title"] = .string("\(who)-\(roll(100))")
            switch roll(3) {
            case 0: record["n"] = .int64(Int64(roll(10)))
            case 1: record["n"] = nil
            default: break
            }
            trace.append("\(who) save \(id.recordName) in \(zone.zoneName) \(record.fields.map { "\($0.name)=\($0.value.displayString)" })")
            do {
                try device.engine.save(record)
            } catch let error as CloudError where error.code == .userDeletedZone {
                trace.append("  refused: \(error.reason)")
            }
        case 34..<44:
            let cached = try device.store.allRecords(in: .private) + device.store.allRecords(in: .shared)
            guard !cached.isEmpty else { return }
            let victim = cached[roll(UInt64(cached.count))].recordID
            trace.append("\(who) delete \(victim)")
            try device.engine.delete(victim)
        case 44..<47 where !isBob:
            let zone = zones[roll(UInt64(zones.count))]
            trace.append("\(who) saveZone \(zone.zoneName)")
            try device.engine.saveZone(zone)
        case 47..<50 where !isBob:
            let zone = zones[roll(UInt64(zones.count))]
            trace.append("\(who) deleteZone \(zone.zoneName)")
            try device.engine.deleteZone(zone)
        case 50..<68:
            trace.append("\(who) send")
            try await device.engine.sendChanges()
        case 68..<92:
            let limit: Int? = roll(3) == 0 ? nil : 1 + roll(4)
            let stop: Int? = roll(2) == 0 ? 1 + roll(4) : nil
            trace.append("\(who) fetch limit=\(limit.map(String.init) ?? "-") stopAfter=\(stop.map(String.init) ?? "-")")
            do {
                try await device.engine.fetchChanges(resultsLimit: limit, stopAfterBatches: stop)
            } catch SyncClientError.interrupted(let n) {
                let crash = roll(2) == 0
                trace.append("  interrupted after \(n)\(crash ? ", app restarted" : "")")
                if crash { try device.restart() }
            }
        case 92..<97:
            let keep = roll(4)
            trace.append("compact alice keepLast=\(keep)")
            try await admin.compactHistory(in: nil, zoneID: nil, keepLast: keep)
        case 97 where roll(2) == 0:
            let zone = zones[roll(UInt64(zones.count))]
            if try await admin.serverZoneIDs().contains(zone) {
                trace.append("alice purges \(zone.zoneName)")
                try await admin.purgeRecordZone(in: .private, zone)
            }
        case 97:
            trace.append("alice resets her encrypted data")
            try await admin.encryptedDataReset()
        case 98:
            let keep = roll(3)
            trace.append("compact bob shared keepLast=\(keep)")
            try await bobAdmin.compactHistory(in: .shared, zoneID: nil, keepLast: keep)
        default:
            if try await admin.serverZoneIDs().contains(sharedZone) {
                trace.append("alice shares Z0 with bob")
                try await admin.shareZone(sharedZone, with: ["bob"])
            }
        }
    }

    private func check(_ device: TestDevice) async throws {
        try await checkCacheEqualsServer(device, name: name(device))
    }
}

/// The device's cache (zones and records of both databases) against a fresh
/// fetch with no tokens; throws a ``ConvergenceTests/Divergence`` saying what differs.
func checkCacheEqualsServer(_ device: TestDevice, name who: String) async throws {
    for scope in [DatabaseScope.private, .shared] {
        let serverZones = try await device.service.serverZoneIDs(scope: scope)
        let known = try device.store.knownZones(in: scope).map(\.zoneID)
        guard known == serverZones else {
            throw ConvergenceTests.Divergence(description: "\(who) knows \(scope.rawValue) zones \(known), the server has \(serverZones)")
        }
        var expected: [Record] = []
        for zone in serverZones { expected += try await device.service.serverRecords(in: zone, scope: scope) }
        let cached = try device.store.allRecords(in: scope)
        guard cached == expected.sorted(by: { $0.recordID < $1.recordID }) else {
            let mine = Set(cached.map(\.description)), theirs = Set(expected.map(\.description))
            throw ConvergenceTests.Divergence(description: """
                \(who)'s \(scope.rawValue) cache differs from the server.
                  only on device: \(mine.subtracting(theirs).sorted())
                  only on server: \(theirs.subtracting(mine).sorted())
                """)
        }
    }
}
