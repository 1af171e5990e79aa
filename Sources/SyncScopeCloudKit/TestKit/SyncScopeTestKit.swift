import Foundation
import SyncCore

/// Runs a set of a team's devices through seeded random histories with faults and checks
/// that they converge (SyncScope's).
///
/// Each seed gets a fresh in-process server and fresh devices from the team's factory. The
/// history interleaves local saves and deletions on a few shared IDs (so devices conflict),
/// sends and fetches, and faults: throttling, busy zones, failing items, lost answers of
/// applied writes, an unavailable service, lost pushes, the app's zone deleted on the server,
/// and a device switching to another account and back. Then faults stop and every device sends
/// and fetches in turn until nothing is pending and all hold the same data, or the rounds run out.
///
/// ```swift
/// let kit = SyncScopeTestKit(zoneIDs: [MyStore.zoneID], replayFilter: "MyStoreTests/convergence")
/// try await kit.check(seeds: 0..<200) { container in MyStore(container: container) }
/// ```
///
/// A failing seed throws ``SyncScopeTestFailure``: its description has the command that
/// replays that seed alone (`SYNCSCOPE_SEED=…`) and every step.
public struct SyncScopeTestKit: Sendable {
    /// A local change the kit asks a device to make.
    public enum Change: Sendable, Hashable, CustomStringConvertible {
        case save(id: String, value: String)
        case delete(id: String)

        public var description: String {
            switch self {
            case .save(let id, let value): "saves \(id) = \"\(value)\""
            case .delete(let id): "deletes \(id)"
            }
        }
    }

    public var devices: Int
    public var steps: Int
    /// The IDs the changes use: few, so devices change the same ones.
    public var ids: [String]
    /// The app's zones, for the zone-deletion step.
    public var zoneIDs: [CKRecordZone.ID]
    public var faults: Bool
    /// Rounds of send-and-fetch on every device before convergence is judged.
    public var settleRounds: Int
    /// What `swift test --filter` needs to run the calling test alone.
    public var replayFilter: String

    public init(
        devices: Int = 2, steps: Int = 40, ids: [String] = ["a", "b", "c", "d"], zoneIDs: [CKRecordZone.ID], faults: Bool = true,
        settleRounds: Int = 6, replayFilter: String
    ) {
        self.devices = devices
        self.steps = steps
        self.ids = ids
        self.zoneIDs = zoneIDs
        self.faults = faults
        self.settleRounds = settleRounds
        self.replayFilter = replayFilter
    }

    /// The seed to replay alone, when `SYNCSCOPE_SEED` is set.
    public static var replaySeed: UInt64? { ProcessInfo.processInfo.environment["SYNCSCOPE_SEED"].flatMap(UInt64.init) }

    /// Runs every seed (or only `SYNCSCOPE_SEED`); throws the first that does not converge.
    public func check<Device: SyncScopeTestDevice>(
        seeds: Range<UInt64>, makeDevice: @Sendable (CKContainer) async -> Device
    ) async throws {
        let chosen = Self.replaySeed.map { [$0] } ?? Array(seeds)
        for seed in chosen {
            let report = await run(seed: seed, makeDevice: makeDevice)
            if !report.converged { throw SyncScopeTestFailure(report: report) }
        }
    }

    /// Runs one seed and reports it.
    public func run<Device: SyncScopeTestDevice>(seed: UInt64, makeDevice: @Sendable (CKContainer) async -> Device) async -> SyncScopeTestReport {
        let identifier = "iCloud.syncscope.testkit.\(seed).\(UUID().uuidString)"
        let backEnd = SyncScopeBackEnd.inProcess(seed: seed)
        SyncScopeBackEnd.install(backEnd, forContainer: identifier)
        var containers: [CKContainer] = []
        var devices: [Device] = []
        for _ in 0..<self.devices {
            let container = CKContainer(identifier: identifier)
            containers.append(container)
            devices.append(await makeDevice(container))
        }
        var random = SeededRandom(seed: seed)
        var log: [String] = []
        var valueCounter = 0

        func note(_ text: String) { log.append("\(log.count + 1). \(text)") }

        for _ in 0..<steps {
            let d = Int(random.next() % UInt64(devices.count))
            let device = devices[d]
            let roll = random.next() % 100
            switch roll {
            case 0..<30:
                valueCounter += 1
                let change = Change.save(id: pick(ids, &random), value: "v\(valueCounter)")
                note("device \(d) \(change)")
                await device.apply(change)
            case 30..<38:
                let change = Change.delete(id: pick(ids, &random))
                note("device \(d) \(change)")
                await device.apply(change)
            case 38..<60:
                note("device \(d) sends" + outcome(await attempt { try await device.syncEngine.sendChanges() }))
            case 60..<82:
                note("device \(d) fetches" + outcome(await attempt { try await device.syncEngine.fetchChanges() }))
            case 82..<95 where faults:
                note(addFault(&random, backEnd))
            case 95..<98 where faults && !zoneIDs.isEmpty:
                let zone = pick(zoneIDs, &random)
                let result = await attempt { _ = try await containers[d].privateCloudDatabase.deleteRecordZone(withID: zone) }
                note("the server's zone \(zone.zoneName) is deleted (by another app)" + outcome(result))
            case 98..<100 where faults:
                let container = containers[d]
                let user = container.currentUser
                container.signIn("_another_user")
                let away = await attempt { try await device.syncEngine.fetchChanges() }
                container.signIn(user)
                note("device \(d) switches to another account, fetches" + outcome(away) + ", and switches back")
            default:
                note("device \(d) fetches" + outcome(await attempt { try await device.syncEngine.fetchChanges() }))
            }
        }

        backEnd.clearFaults()
        note("faults stop; every device sends and fetches in turn")
        var snapshots: [[String: String]] = []
        var pending: [Int] = []
        for _ in 0..<settleRounds {
            for device in devices {
                _ = await attempt { try await device.syncEngine.sendChanges() }
                _ = await attempt { try await device.syncEngine.fetchChanges() }
            }
            snapshots = []
            pending = []
            for device in devices {
                snapshots.append(await device.snapshot())
                let state = await device.syncEngine.state
                pending.append(state.pendingRecordZoneChanges.count + state.pendingDatabaseChanges.count)
            }
            if pending.allSatisfy({ $0 == 0 }) && snapshots.dropFirst().allSatisfy({ $0 == snapshots.first }) { break }
        }
        return SyncScopeTestReport(
            seed: seed, steps: log, snapshots: snapshots, pendingCounts: pending,
            replayCommand: "SYNCSCOPE_SEED=\(seed) swift test --filter \(replayFilter)")
    }

    private func pick<T>(_ items: [T], _ random: inout SeededRandom) -> T {
        items[Int(random.next() % UInt64(items.count))]
    }

    private func attempt(_ body: () async throws -> Void) async -> (any Error)? {
        do {
            try await body()
            return nil
        } catch {
            return error
        }
    }

    private func outcome(_ error: (any Error)?) -> String {
        guard let error else { return "" }
        if let error = error as? CKError { return " (\(error.code))" }
        return " (\(error))"
    }

    /// One fault rule, for the next call or two it matches.
    private func addFault(_ random: inout SeededRandom, _ backEnd: SyncScopeBackEnd) -> String {
        let (effect, operation): (FaultEffect, String) =
            switch random.next() % 7 {
            case 0: (.throttled(retryAfter: 3), "records/modify")
            case 1: (.zoneBusy(retryAfter: 2), "changes/zone")
            case 2: (.itemFailures(code: .zoneBusy, retryAfter: 1), "records/modify")
            case 3: (.ambiguousCommit, "records/modify")
            case 4: (.serviceUnavailable(retryAfter: nil), "changes/database")
            case 5: (.pushDrop, "push")
            default: (.internalError, "records/modify")
            }
        let times = Int(random.next() % 2) + 1
        backEnd.addFaults(FaultPlan([FaultRule(effect, match: FaultMatch(operations: [operation]), frequency: FaultFrequency(times: times))]))
        return "fault: \(effect.summary) on the next \(times == 1 ? "" : "\(times) ")\(operation)"
    }
}
