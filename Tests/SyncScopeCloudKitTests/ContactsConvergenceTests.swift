import Foundation
import SyncScopeCloudKit
import Testing

extension SyncedDatabase: SyncScopeTestDevice {
    func apply(_ change: SyncScopeTestKit.Change) async {
        switch change {
        case .save(let id, let value): saveContact(id: id, name: value)
        case .delete(let id): deleteContacts([id])
        }
    }

    func snapshot() async -> [String: String] {
        Dictionary(uniqueKeysWithValues: contacts.map { ($0.id, $0.name) })
    }
}

/// The contacts example through the test kit: seeded random histories with faults, two and
/// three devices, must converge: 1,000 seeds of two devices and 200 of three (about a minute
/// in a debug build); `SYNCSCOPE_SEEDS=N` runs N and N/5 instead.
@Suite struct ContactsConvergenceTests {
    static let seedCount = ProcessInfo.processInfo.environment["SYNCSCOPE_SEEDS"].flatMap(UInt64.init) ?? 1000

    @Test func twoDevicesConvergeUnderFaults() async throws {
        let kit = SyncScopeTestKit(zoneIDs: [SyncedDatabase.zoneID], replayFilter: "ContactsConvergenceTests/twoDevicesConvergeUnderFaults")
        let start = ContinuousClock.now
        let clock = UserClock()
        try await kit.check(seeds: 0..<Self.seedCount) { container in SyncedDatabase(container: container, now: clock.tick) }
        print("test kit: \(Self.seedCount) seeds of two devices in \(ContinuousClock.now - start)")
    }

    @Test func threeDevicesConvergeUnderFaults() async throws {
        let kit = SyncScopeTestKit(
            devices: 3, steps: 30, zoneIDs: [SyncedDatabase.zoneID], replayFilter: "ContactsConvergenceTests/threeDevicesConvergeUnderFaults")
        let clock = UserClock()
        try await kit.check(seeds: 1000..<(1000 + Self.seedCount / 5)) { container in SyncedDatabase(container: container, now: clock.tick) }
    }

    /// A device that keeps its saves to itself: the kit must catch it and say how to replay.
    actor ForgetfulDevice: SyncScopeTestDevice {
        let inner: SyncedDatabase
        private var local: [String: String] = [:]

        init(container: CKContainer) {
            inner = SyncedDatabase(container: container)
        }

        var syncEngine: CKSyncEngine { get async { await inner.syncEngine } }

        func apply(_ change: SyncScopeTestKit.Change) async {
            if case .save(let id, let value) = change { local[id] = value }
        }

        func snapshot() async -> [String: String] {
            await inner.snapshot().merging(local) { _, mine in mine }
        }
    }

    @Test func aFailingSeedSaysHowToReplayIt() async throws {
        let kit = SyncScopeTestKit(steps: 20, zoneIDs: [SyncedDatabase.zoneID], faults: false, replayFilter: "ContactsConvergenceTests/aFailingSeedSaysHowToReplayIt")
        do {
            try await kit.check(seeds: 0..<20) { container in ForgetfulDevice(container: container) }
            Issue.record("the kit passed devices that never share their saves")
        } catch let failure as SyncScopeTestFailure {
            let text = failure.description
            #expect(!failure.report.converged)
            #expect(text.contains("did not converge"))
            #expect(text.contains("Replay: SYNCSCOPE_SEED=\(failure.report.seed) swift test --filter ContactsConvergenceTests/aFailingSeedSaysHowToReplayIt"))
            #expect(failure.report.steps.first?.hasPrefix("1. device ") == true)
            #expect(failure.report.steps.contains { $0.contains(" saves ") })
            #expect(text.contains("Device 1:"))
        }
    }

    @Test func aSeedReplaysTheSameHistory() async throws {
        let kit = SyncScopeTestKit(zoneIDs: [SyncedDatabase.zoneID], replayFilter: "x")
        let first = await kit.run(seed: 42) { container in SyncedDatabase(container: container, now: UserClock().tick) }
        let again = await kit.run(seed: 42) { container in SyncedDatabase(container: container, now: UserClock().tick) }
        #expect(first.steps == again.steps)
        #expect(first.snapshots == again.snapshots)
        #expect(first.converged)
    }
}
