import Foundation
import SyncCore
import SyncClient
import SyncServer
import Testing

/// Random histories where devices learn of changes only through push: every
/// device is registered, every user has database subscriptions (private and
/// shared), notifications are coalesced, held while a device is offline, and
/// some delivered ones are dropped on the way. Devices fetch only when a
/// notification, coming back online or (rarely) the app asks them to — and
/// notifications also arrive while a fetch runs.
///
/// Property: once everyone is online, every notification delivered and
/// fetched and every change sent, each device's cache equals the server.
///
/// Zone-level changes (zone creation and deletion, purges, resets, sharing)
/// notify through the database subscriptions like record changes do, so the
/// only notifications a device can miss are the ones the test drops: a device
/// that may have missed one since its last fetch run started does one manual
/// fetch when the history settles, as an app does at launch. Every other
/// device must get there by push alone.
///
/// Set `SYNCSCOPE_SEED=<n>` to replay one seed with a trace of its steps and
/// events, `SYNCSCOPE_SEEDS=<count>` to run more than the default 200 seeds.
@Suite struct PushConvergenceTests {
    static let seedCount: UInt64 = 200

    @Test func devicesSyncingOnlyThroughPushConvergeToServerState() async throws {
        let replay = ProcessInfo.processInfo.environment["SYNCSCOPE_SEED"].flatMap { UInt64($0) }
        let count = ProcessInfo.processInfo.environment["SYNCSCOPE_SEEDS"].flatMap { UInt64($0) } ?? Self.seedCount
        let seeds = replay.map { [$0] } ?? Array(1...max(1, count))
        var coverage = PushScenario.Coverage()
        for seed in seeds {
            let scenario = try PushScenario(seed: seed, traceEvents: replay != nil)
            do {
                try await scenario.run()
                coverage.add(scenario.coverage)
            } catch {
                let trace = scenario.trace.suffix(replay == nil ? 30 : Int.max).joined(separator: "\n  ")
                Issue.record("seed \(seed) diverged (replay with SYNCSCOPE_SEED=\(seed)): \(error)\n  last steps:\n  \(trace)")
                if replay == nil { return }
            }
        }
        // The histories must reach the interesting paths, or the test proves little.
        if replay == nil {
            #expect(coverage.pushRuns > 0, "no fetch run triggered by a notification")
            #expect(coverage.followUpRuns > 0, "no follow-up run for notifications that arrived during a run")
            #expect(coverage.notificationsDuringRuns > coverage.followUpRuns, "never more than one notification during a run")
            #expect(coverage.cameOnlineRuns > 0, "no came-online fetch run")
            #expect(coverage.coalesced > 0, "no coalesced notification delivered")
            #expect(coverage.dropped > 0, "no notification dropped")
            #expect(coverage.pushOnlyDevices > 0, "no device converged by push alone")
            #expect(coverage.pushOnlyAfterZoneRemoval > 0, "no device converged by push alone through a zone deletion, purge or reset")
            #expect(coverage.runsApplyingChanges > 0, "no fetch run applied a change")
            #expect(coverage.tokenExpired > 0, "no expired token during a push-triggered fetch")
        }
    }
}

private final class PushScenario {
    struct Coverage {
        var pushRuns = 0
        var followUpRuns = 0
        var notificationsDuringRuns = 0
        var cameOnlineRuns = 0
        var coalesced = 0
        var dropped = 0
        var pushOnlyDevices = 0
        /// Push-only devices in histories where a zone was deleted, purged or reset away.
        var pushOnlyAfterZoneRemoval = 0
        var runsApplyingChanges = 0
        var tokenExpired = 0

        mutating func add(_ other: Coverage) {
            pushRuns += other.pushRuns
            followUpRuns += other.followUpRuns
            notificationsDuringRuns += other.notificationsDuringRuns
            cameOnlineRuns += other.cameOnlineRuns
            coalesced += other.coalesced
            dropped += other.dropped
            pushOnlyDevices += other.pushOnlyDevices
            pushOnlyAfterZoneRemoval += other.pushOnlyAfterZoneRemoval
            runsApplyingChanges += other.runsApplyingChanges
            tokenExpired += other.tokenExpired
        }
    }

    /// One device and what the test knows about it.
    final class Slot {
        let device: TestDevice
        let name: String
        var online = true
        /// A change it was never told about may have happened since its last fetch run started.
        var mayHaveMissed = false
        var eventsTraced = 0

        init(device: TestDevice, name: String) {
            self.device = device
            self.name = name
        }

        var engine: DeviceSyncEngine { device.engine }
    }

    let seed: UInt64
    var random: SeededRandom
    let clock = VirtualClock()
    let server: SimulatedServer
    let admin: InProcessCloudService
    let bobAdmin: InProcessCloudService
    let directory: TemporaryDirectory
    var slots: [Slot] = []
    var trace: [String] = []
    var coverage = Coverage()
    /// Whether a zone was deleted, purged or reset away in this history.
    var zoneRemoved = false
    let zones = ["Z0", "Z1", "Z2"].map { Fixture.zone($0) }
    let sharedZone = Fixture.zone("Z0")
    let traceEvents: Bool
    /// Percent of delivered notifications the test throws away.
    var dropPercent: Int
    /// Whether the history is settling: nothing is dropped any more.
    var settling = false
    /// How many more times the world may move on from inside an event handler
    /// (bounded, so that fetching settles); some are kept for settling.
    var midRunBudget = 20
    var settlingMidRunBudget = 3

    init(seed: UInt64, traceEvents: Bool) throws {
        self.seed = seed
        self.traceEvents = traceEvents
        var random = SeededRandom(seed: seed ^ 0x5055_5348)
        var configuration = ServerConfiguration(seed: seed)
        if random.next() % 4 == 0 { configuration.retention = Int(3 + random.next() % 8) }
        let windows: [Milliseconds] = [0, 200, 1_000]
        let latencies: [Milliseconds] = [0, 50, 400]
        let push = PushConfiguration(
            coalescingWindow: windows[Int(random.next() % 3)], deliveryLatency: latencies[Int(random.next() % 3)])
        dropPercent = [0, 10, 30][Int(random.next() % 3)]
        self.random = random
        server = SimulatedServer(configuration: configuration, push: push, clock: clock)
        admin = try server.connect(user: "alice", deviceID: "admin")
        bobAdmin = try server.connect(user: "bob", deviceID: "bob-admin")
        directory = try TemporaryDirectory()
        trace.append(
            "retention \(configuration.retention.map(String.init) ?? "-"), coalescing \(push.coalescingWindow) ms, latency \(push.deliveryLatency) ms, drop \(dropPercent)%")
        let sqliteDevice = seed % 10 == 0 ? 0 : -1
        for (index, (user, name)) in [("alice", "d0"), ("alice", "d1"), ("alice", "d2"), ("bob", "b0")].enumerated() {
            let device = try TestDevice(
                service: server.connect(user: user, deviceID: name), clock: clock,
                kind: index == sqliteDevice ? .sqlite : .memory, directory: directory)
            try server.registerDevice(user: user, deviceID: name)
            let slot = Slot(device: device, name: name)
            device.events.onEvent = { [unowned self, unowned slot] event in self.observe(event, on: slot) }
            slots.append(slot)
        }
    }

    private func roll(_ n: Int) -> Int { Int(random.next() % UInt64(n)) }

    func run() async throws {
        for (service, user) in [(admin, "alice"), (bobAdmin, "bob")] {
            try await service.subscribe([.database(DatabaseSubscription(subscriptionID: "\(user)-private"))], in: .private)
            try await service.subscribe([.database(DatabaseSubscription(subscriptionID: "\(user)-shared"))], in: .shared)
        }
        // Announced by the database subscriptions: no device needs to fetch by hand.
        try await admin.createZones([sharedZone])
        try await admin.shareZone(sharedZone, with: ["bob"])
        let steps = 60 + roll(60)
        for _ in 0..<steps {
            clock.advance(by: Milliseconds([0, 50, 150, 400][roll(4)]))
            try await step()
            traceNewEvents()
        }
        try await settle()
        for slot in slots {
            if slot.engine.fetchRuns.allSatisfy({ $0.reason != .manual }) {
                coverage.pushOnlyDevices += 1
                if zoneRemoved { coverage.pushOnlyAfterZoneRemoval += 1 }
            }
            coverage.pushRuns += slot.engine.fetchRuns.count { $0.reason == .push }
            coverage.cameOnlineRuns += slot.engine.fetchRuns.count { $0.reason == .cameOnline }
            coverage.runsApplyingChanges += slot.engine.fetchRuns.count { $0.changesApplied > 0 }
            coverage.tokenExpired += slot.device.events.events.count { if case .tokenExpired = $0 { true } else { false } }
            try await checkCacheEqualsServer(slot.device, name: slot.name)
        }
    }

    // MARK: Random steps

    private func step() async throws {
        let slot = slots[roll(slots.count)]
        let isBob = slot.device.service.userRecordName == "bob"
        let who = slot.name
        switch roll(100) {
        case 0..<28:
            let zone = isBob ? sharedZone : zones[roll(zones.count)]
            let id = Fixture.id("r\(roll(6))", in: zone)
            var record = try slot.engine.record(id) ?? Record(recordID: id, recordType: "Note")
            record["title"] = .string("\(who)-\(roll(100))")
            if roll(2) == 0 { record["n"] = roll(2) == 0 ? .int64(Int64(roll(10))) : nil }
            trace.append("\(who) save \(id.recordName) in \(zone.zoneName)")
            do {
                try slot.engine.save(record)
            } catch let error as CloudError where error.code == .userDeletedZone {
                trace.append("  refused: \(error.reason)")
            }
        case 28..<37:
            let cached = try slot.device.store.allRecords(in: .private) + slot.device.store.allRecords(in: .shared)
            guard !cached.isEmpty else { return }
            let victim = cached[roll(cached.count)].recordID
            trace.append("\(who) delete \(victim)")
            try slot.engine.delete(victim)
        case 37..<40 where !isBob:
            let zone = zones[roll(zones.count)]
            trace.append("\(who) saveZone \(zone.zoneName)")
            try slot.engine.saveZone(zone)
        case 40..<43 where !isBob:
            let zone = zones[roll(zones.count)]
            trace.append("\(who) deleteZone \(zone.zoneName)")
            try slot.engine.deleteZone(zone)
        case 43..<57:
            try await send(slot)
        case 57..<75:
            trace.append("deliver due")
            dispatch(server.deliverDue())
            if roll(3) != 0 {
                for other in slots { try await runFetches(other) }
            }
        case 75..<82:
            try await runFetches(slot)
        case 82..<86:
            try await adminWrite()
        case 86..<88 where slot.online:
            trace.append("\(who) manual fetch")
            slot.engine.scheduleFetch()
            try await runFetches(slot)
        case 88..<91:
            let keep = roll(4)
            trace.append("compact alice keepLast=\(keep)")
            try await admin.compactHistory(in: nil, zoneID: nil, keepLast: keep)
        case 91:
            let keep = roll(3)
            trace.append("compact bob shared keepLast=\(keep)")
            try await bobAdmin.compactHistory(in: .shared, zoneID: nil, keepLast: keep)
        case 92..<98:
            try await toggleOnline(slot)
        case 98 where roll(2) == 0:
            let zone = zones[roll(zones.count)]
            if try await admin.serverZoneIDs().contains(zone) {
                trace.append("alice purges \(zone.zoneName)")
                try await admin.purgeRecordZone(in: .private, zone)
                zoneRemoved = true
            }
        case 98:
            trace.append("alice resets her encrypted data")
            try await admin.encryptedDataReset()
            zoneRemoved = true
        default:
            if try await admin.serverZoneIDs().contains(sharedZone) {
                trace.append("alice shares Z0 with bob")
                try await admin.shareZone(sharedZone, with: ["bob"])
            }
        }
    }

    /// Sends the device's changes (only online). Zone changes notify the
    /// other devices through the database subscriptions, like record changes.
    private func send(_ slot: Slot) async throws {
        guard slot.online else { return }
        trace.append("\(slot.name) send")
        let mark = slot.device.events.events.count
        try await slot.engine.sendChanges()
        if slot.device.events.events[mark...].contains(where: { event in
            if case .zonesSent(_, _, let deleted) = event { !deleted.isEmpty } else { false }
        }) {
            zoneRemoved = true
        }
    }

    /// Runs the device's scheduled fetches (only online).
    private func runFetches(_ slot: Slot) async throws {
        guard slot.online, slot.engine.isFetchScheduled else { return }
        let limit: Int? = roll(3) == 0 ? nil : 1 + roll(4)
        trace.append("\(slot.name) runs scheduled fetches limit=\(limit.map(String.init) ?? "-")")
        await slot.engine.runScheduledFetches(resultsLimit: limit)
        // It runs follow-ups itself: nothing may be left scheduled or running.
        guard !slot.engine.isFetchScheduled, !slot.engine.isFetching else {
            throw ConvergenceTests.Divergence(
                description: "\(slot.name): runScheduledFetches returned with a fetch still scheduled or running")
        }
    }

    /// alice's unregistered "admin" device writes a record: every device subscribed gets told.
    private func adminWrite() async throws {
        let serverZones = try await admin.serverZoneIDs()
        guard !serverZones.isEmpty else { return }
        let zone = serverZones[roll(serverZones.count)]
        let id = Fixture.id("r\(roll(6))", in: zone)
        if roll(4) == 0 {
            trace.append("admin deletes \(id.recordName) in \(zone.zoneName)")
            let results = try await admin.modifyRecords(in: .private, zoneID: zone, operations: [.delete(id)])
            for result in results {
                if case .failure(let error) = result, error.code != .unknownItem { throw error }
            }
        } else {
            trace.append("admin saves \(id.recordName) in \(zone.zoneName)")
            try await admin.put([Fixture.note(id.recordName, in: zone, ["title": .string("admin-\(roll(100))")])])
        }
    }

    private func toggleOnline(_ slot: Slot) async throws {
        if slot.online {
            trace.append("\(slot.name) goes offline")
            dispatch(try server.setOnline(slot.name, false))
            slot.online = false
        } else {
            trace.append("\(slot.name) comes back online")
            dispatch(try server.setOnline(slot.name, true))
            slot.online = true
            slot.engine.cameOnline()
            if roll(2) == 0 { try await runFetches(slot) }
        }
    }

    /// Hands deliveries to their devices' engines, dropping some on the way.
    private func dispatch(_ deliveries: [Delivery]) {
        for delivery in deliveries {
            guard let slot = slots.first(where: { $0.name == delivery.deviceID }) else { continue }
            if delivery.notification.coalescedCount > 1 { coverage.coalesced += 1 }
            if !settling, roll(100) < dropPercent {
                trace.append("  dropped \(delivery)")
                coverage.dropped += 1
                slot.mayHaveMissed = true
                continue
            }
            trace.append("  \(delivery)")
            if slot.engine.isFetching { coverage.notificationsDuringRuns += 1 }
            slot.engine.notificationReceived(delivery.notification)
        }
    }

    /// The engine's events as they happen: what its runs cover, and now and
    /// then the world moving on in the middle of a fetch.
    private func observe(_ event: SyncEvent, on slot: Slot) {
        switch event {
        case .fetchRunStarted:
            // A run fetches everything committed before it starts.
            slot.mayHaveMissed = false
        case .fetchRunFinished(let run):
            if run.succeeded != true {
                slot.mayHaveMissed = true
                trace.append("  \(slot.name) run \(run.id) failed: \(run.errorMessage ?? "?")")
            }
        case .fetchScheduled where slot.engine.isFetching:
            coverage.followUpRuns += 1
        case .tokenReceived where (settling ? settlingMidRunBudget : midRunBudget) > 0 && roll(5) == 0:
            if settling { settlingMidRunBudget -= 1 } else { midRunBudget -= 1 }
            clock.advance(by: Milliseconds([0, 100, 300][roll(3)]))
            if roll(2) == 0 {
                let zone = zones[roll(zones.count)]
                let name = "r\(roll(6))"
                let record = Fixture.note(name, in: zone, ["title": .string("mid-\(roll(100))")])
                do {
                    try server.putNow([record], user: "alice", deviceID: "admin")
                    trace.append("  (during \(slot.name)'s fetch) admin saves \(name) in \(zone.zoneName)")
                } catch {
                    trace.append("  (during \(slot.name)'s fetch) admin could not save \(name) in \(zone.zoneName): \(error)")
                }
            }
            trace.append("  (during \(slot.name)'s fetch) deliver due")
            dispatch(server.deliverDue())
        default:
            break
        }
    }

    // MARK: Settling

    /// Everyone online; devices that may have missed a silent change fetch
    /// once; then send, deliver and fetch until nothing moves.
    private func settle() async throws {
        settling = true
        trace.append("settle")
        for slot in slots where !slot.online { try await toggleOnline(slot) }
        for round in 1...8 {
            for slot in slots where slot.mayHaveMissed {
                trace.append("\(slot.name) may have missed a change: manual fetch (round \(round))")
                slot.engine.scheduleFetch()
            }
            for slot in slots {
                try await send(slot)
                traceNewEvents()
            }
            trace.append("deliver everything")
            dispatch(server.deliverEverything(clock: clock))
            for slot in slots {
                try await runFetches(slot)
                traceNewEvents()
            }
            let quiet = try slots.allSatisfy { slot in
                try slot.device.store.pendingChanges().isEmpty && !slot.engine.isFetchScheduled && !slot.mayHaveMissed
            }
            if quiet && server.nextDeliveryTime == nil { return }
        }
        let busy = try slots.filter { slot in
            try !slot.device.store.pendingChanges().isEmpty || slot.engine.isFetchScheduled || slot.mayHaveMissed
        }.map(\.name)
        throw ConvergenceTests.Divergence(description: "still not settled after 8 rounds: \(busy)")
    }

    /// In replay mode, every engine event goes into the trace too.
    private func traceNewEvents() {
        guard traceEvents else { return }
        for slot in slots {
            for event in slot.device.events.events.dropFirst(slot.eventsTraced) {
                trace.append("    [\(slot.name)] \(event)")
            }
            slot.eventsTraced = slot.device.events.events.count
        }
    }
}
