import SyncCore
import SyncClient
import SyncServer
import SyncWorlds

/// Random histories of devices syncing through a server that misbehaves on
/// purpose: every seed builds a world, a fault plan and a history from that
/// seed alone, plays it on the virtual clock, then lets the faults stop,
/// brings every device online, syncs each one and checks that every device's
/// cache equals the server.
///
/// The convergence tests run it for hundreds of seeds; `syncscope explore`
/// runs it for as many as asked and stops at the first that does not converge.
public enum FaultExplorer {
    public struct Options: Sendable, Hashable {
        /// The fault kinds the plan draws from (all: every kind).
        public var faults: Set<FaultKind>
        /// Devices in the world, 2 to 8: all but the last are alice's, the last is bob's (alice shares a zone with him).
        public var devices: Int
        /// Steps of random history per seed.
        public var steps: ClosedRange<Int>

        public init(faults: Set<FaultKind> = Set(FaultKind.allCases), devices: Int = 3, steps: ClosedRange<Int> = 30...60) {
            self.faults = faults
            self.devices = min(8, max(2, devices))
            self.steps = steps
        }
    }

    /// What one seed came to.
    public struct Outcome: Sendable {
        public var seed: UInt64
        /// `nil`: every device converged; else what differs.
        public var divergence: String?
        /// The history, step by step (the world's own events are in ``events``).
        public var steps: [String]
        /// The world's events, as text, oldest first (at most the last 2,000).
        public var events: [String]
        /// Faults injected, by kind.
        public var faultCounts: [FaultKind: Int]
        /// Retries the devices' engines scheduled.
        public var retries: Int
        /// Resends after a lost answer that found the change already applied.
        public var ambiguousCommitsResolved: Int

        public var converged: Bool { divergence == nil }
    }

    /// The plan a seed runs with: for each kind asked for, one rule with a rate and parameters drawn from `random`.
    public static func plan(kinds: Set<FaultKind>, random: inout SeededRandom) -> FaultPlan {
        func chance(_ low: Double, _ high: Double) -> Double {
            low + (high - low) * Double(random.next() % 1000) / 1000
        }
        func seconds(_ range: ClosedRange<Int>) -> Double { Double(range.lowerBound + Int(random.next() % UInt64(range.count))) }
        var rules: [FaultRule] = []
        for kind in FaultKind.allCases where kinds.contains(kind) {
            switch kind {
            case .throttled:
                rules.append(FaultRule(.throttled(retryAfter: seconds(1...5)), match: FaultMatch(operations: ["records/modify", "zones/modify"]), frequency: FaultFrequency(probability: chance(0.03, 0.1))))
            case .zoneBusy:
                rules.append(FaultRule(.zoneBusy(retryAfter: seconds(1...3)), match: FaultMatch(operations: ["records/modify", "changes/zone"]), frequency: FaultFrequency(probability: chance(0.02, 0.08))))
            case .serviceUnavailable:
                rules.append(FaultRule(.serviceUnavailable(retryAfter: seconds(2...10)), frequency: FaultFrequency(probability: chance(0.01, 0.05))))
            case .quotaExceeded:
                rules.append(FaultRule(.quotaExceeded, match: FaultMatch(operations: ["records/modify"]), frequency: FaultFrequency(probability: chance(0.02, 0.06))))
            case .internalError:
                rules.append(FaultRule(.internalError, match: FaultMatch(operations: ["changes/database", "changes/zone", "records/modify"]), frequency: FaultFrequency(probability: chance(0.02, 0.06))))
            case .itemFailures:
                rules.append(FaultRule(.itemFailures(code: .zoneBusy, retryAfter: 1), frequency: FaultFrequency(probability: chance(0.05, 0.12))))
            case .ambiguousCommit:
                rules.append(FaultRule(.ambiguousCommit, frequency: FaultFrequency(probability: chance(0.05, 0.15))))
            case .latency:
                rules.append(FaultRule(.latency(.uniform(min: 5, max: 400)), frequency: FaultFrequency(probability: chance(0.2, 0.5))))
            case .pushDrop:
                rules.append(FaultRule(.pushDrop, frequency: FaultFrequency(probability: chance(0.1, 0.3))))
            case .pushDelay:
                rules.append(FaultRule(.pushDelay(Milliseconds(seconds(1...5)) * 1000), frequency: FaultFrequency(probability: chance(0.1, 0.3))))
            case .pushDuplicate:
                rules.append(FaultRule(.pushDuplicate, frequency: FaultFrequency(probability: chance(0.1, 0.3))))
            case .pushReorder:
                rules.append(FaultRule(.pushReorder, frequency: FaultFrequency(probability: chance(0.1, 0.3))))
            case .readLag:
                rules.append(FaultRule(.readLag(Milliseconds(seconds(1...4)) * 1000), frequency: FaultFrequency(probability: chance(0.3, 0.7))))
            }
        }
        return FaultPlan(rules)
    }

    /// Plays one seed.
    public static func run(seed: UInt64, options: Options = Options()) async -> Outcome {
        var history = History(seed: seed, options: options)
        return await history.run()
    }
}

private struct History {
    let seed: UInt64
    let options: FaultExplorer.Options
    var random: SeededRandom
    var steps: [String] = []
    var events: [String] = []
    var retries = 0
    var resolved = 0

    init(seed: UInt64, options: FaultExplorer.Options) {
        self.seed = seed
        self.options = options
        random = SeededRandom(seed: seed).derived(0x4558_504C)  // "EXPL"
    }

    mutating func roll(_ n: Int) -> Int { Int(random.next() % UInt64(max(1, n))) }

    mutating func run() async -> FaultExplorer.Outcome {
        var divergence: String?
        var counts: [FaultKind: Int] = [:]
        do {
            let world = try await play()
            counts = world.server.injectedFaultCounts
            divergence = try await check(world)
        } catch {
            divergence = "the history could not be set up: \(error)"
        }
        return FaultExplorer.Outcome(
            seed: seed, divergence: divergence, steps: steps, events: Array(events.suffix(2_000)), faultCounts: counts, retries: retries,
            ambiguousCommitsResolved: resolved)
    }

    private mutating func play() async throws -> Simulation {
        let deviceCount = options.devices
        var devices: [SimulationSetup.Device] = (0..<(deviceCount - 1)).map { SimulationSetup.Device(name: "a\($0)", user: "alice") }
        devices.append(SimulationSetup.Device(name: "b0", user: "bob"))
        let setup = SimulationSetup(seed: seed, users: ["alice", "bob"], devices: devices, eventLimit: 2_000)
        let world = try Simulation(setup: setup)
        let sink = EventSink()
        world.eventObserver = { event in
            sink.lines.append("\(event.time - VirtualClock.defaultStart) \(event)")
            if case .sync(.retryScheduled) = event.kind { sink.retries += 1 }
            if case .sync(.ambiguousCommitResolved) = event.kind { sink.resolved += 1 }
        }
        defer {
            events = sink.lines
            retries = sink.retries
            resolved = sink.resolved
        }
        // Every device hears of changes by push; alice shares Z0 with bob.
        for device in world.devices {
            for scope in [DatabaseScope.private, .shared] {
                await world.subscribe(
                    .database(DatabaseSubscription(subscriptionID: "all-\(scope.rawValue)", notificationInfo: NotificationInfo(shouldSendContentAvailable: true))),
                    in: scope, on: device)
            }
        }
        let owner = world.devices[0]
        await world.createZone("Z0", on: owner)
        await world.shareZone("Z0", with: ["bob"], on: owner)
        await world.settle()

        var planRandom = random.derived(0x504C_414E)  // "PLAN"
        let plan = FaultExplorer.plan(kinds: options.faults, random: &planRandom)
        if !plan.isEmpty { world.addFaults(plan) }
        steps.append("faults: " + (plan.rules.isEmpty ? "none" : plan.rules.map(\.description).joined(separator: "; ")))

        let zones = ["Z0", "Z1", "Z2"]
        let count = options.steps.lowerBound + roll(options.steps.count)
        for _ in 0..<count {
            let device = world.devices[roll(world.devices.count)]
            let isBob = device.user == "bob"
            let action = roll(100)
            switch action {
            case 0..<36:
                let zone = isBob ? "Z0" : zones[roll(zones.count)]
                let id = RecordID(recordName: "r\(roll(6))", zoneID: RecordZoneID(zoneName: zone, ownerName: "alice"))
                var record = device.cachedRecords(in: id.zoneID).first { $0.recordID == id } ?? Record(recordID: id, recordType: "Note")
                record["title"] = .string("\(device.name)-\(roll(100))")
                if roll(3) == 0 { record["n"] = .int64(Int64(roll(10))) }
                steps.append("\(device.name) save \(id.recordName) in \(zone)")
                await world.save(record, on: device)
            case 36..<46:
                let cached = device.knownZones().flatMap { device.cachedRecords(in: $0) }
                guard !cached.isEmpty else { continue }
                let victim = cached[roll(cached.count)].recordID
                steps.append("\(device.name) delete \(victim.recordName) in \(victim.zoneID.zoneName)")
                await world.delete(victim, on: device)
            case 46..<50 where !isBob:
                let zone = zones[1 + roll(2)]
                steps.append("\(device.name) create zone \(zone)")
                await world.createZone(zone, on: device)
            case 50..<52 where !isBob:
                let zone = zones[1 + roll(2)]
                steps.append("\(device.name) delete zone \(zone)")
                await world.deleteZone(RecordZoneID(zoneName: zone, ownerName: "alice"), on: device)
            case 52..<64:
                steps.append("\(device.name) fetch")
                await world.fetch(on: device)
            case 64..<72:
                steps.append("\(device.name) sync")
                await world.sync(device)
            case 72..<80:
                let online = !device.isOnline
                steps.append("\(device.name) \(online ? "online" : "offline")")
                await world.setOnline(online, device: device)
            default:
                let ms = Milliseconds(100 * (1 + roll(40)))
                steps.append("wait \(ms) ms")
                await world.advance(by: ms)
            }
        }
        return world
    }

    /// The faults stop; every device comes online, waits out read lag and
    /// late pushes, then sends and fetches (as an app does at launch) until
    /// nothing is queued. Returns what differs, or `nil`.
    private mutating func check(_ world: Simulation) async throws -> String? {
        steps.append("faults cleared; everyone online; sync until quiet")
        world.clearFaults()
        for device in world.devices where !device.isOnline { await world.setOnline(true, device: device) }
        await world.advance(by: 30_000)
        for _ in 1...3 {
            for device in world.devices { await world.sync(device) }
            await world.settle()
        }
        for device in world.devices { await world.sync(device) }
        let server = try world.server.connect(user: "alice", deviceID: "explorer-check")
        let bobServer = try world.server.connect(user: "bob", deviceID: "explorer-check-bob")
        for device in world.devices {
            if device.pendingChangeCount > 0 {
                return "\(device.name) still has \(device.pendingChangeCount) pending change(s): \((try? device.engine.pendingChanges()) ?? [])"
            }
            let service = device.user == "bob" ? bobServer : server
            for scope in [DatabaseScope.private, .shared] {
                let serverZones = try await service.listRecordZones(in: scope).map(\.zoneID).filter { !$0.isDefaultZone }.sorted()
                let known = (try? device.store.knownZones(in: scope).map(\.zoneID).sorted()) ?? []
                guard known == serverZones else {
                    return "\(device.name) knows \(scope.rawValue) zones \(known.map(\.zoneName)), the server has \(serverZones.map(\.zoneName))"
                }
                for zoneID in serverZones {
                    let operation = FetchRecordZoneChangesOperation(service: service, scope: scope, recordZoneIDs: [zoneID])
                    let result = try await operation.fetch()
                    if case .failure(let error)? = result.result(for: zoneID) { throw error }
                    let expected = result.changedRecords.sorted { $0.recordID < $1.recordID }
                    let cached = device.cachedRecords(in: zoneID)
                    guard cached == expected else {
                        let mine = Set(cached.map(\.description)), theirs = Set(expected.map(\.description))
                        return """
                            \(device.name)'s cache of \(zoneID.zoneName) (\(scope.rawValue)) differs from the server.
                              only on device: \(mine.subtracting(theirs).sorted())
                              only on server: \(theirs.subtracting(mine).sorted())
                            """
                    }
                }
            }
        }
        return nil
    }
}

private final class EventSink {
    var lines: [String] = []
    var retries = 0
    var resolved = 0
}
