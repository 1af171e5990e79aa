import SyncCore
import SyncServer
import SyncSimulation

/// Reconstructs what a device's own ``DeviceSyncEngine`` fetched (in a
/// `sync`, or when a push or coming online made it fetch), batch by batch.
///
/// The engine reports each batch only as a token receipt. The recorder knows
/// the token each batch started from (the one the fetch began with, then the
/// previous batch's; none after an expired token) and asks the server the
/// same question at the same moment — the server is deterministic and a
/// fetch changes nothing on it — then checks that the answer carries the
/// token the engine received. A batch whose answer does not match is
/// reported as such rather than guessed.
final class EngineFetchRecorder {
    private struct ZoneKey: Hashable {
        var scope: DatabaseScope
        var zoneID: RecordZoneID
    }

    private struct DeviceState {
        var summary: FetchSummary?
        var tokensBefore: TokenCache?
        var databaseStart: [DatabaseScope: ServerChangeToken?] = [:]
        var zoneStart: [ZoneKey: ServerChangeToken?] = [:]
    }

    private var states: [String: DeviceState] = [:]
    /// Called with each reconstructed batch (and notes).
    var report: (TranscriptEvent.Kind) -> Void = { _ in }
    /// Called when a device's fetch ends, with everything it received.
    var finished: (FetchSummary) -> Void = { _ in }

    func handle(_ event: SyncEvent, on device: SimulatedDevice) {
        var state = states[device.name] ?? DeviceState()
        defer { states[device.name] = state }
        switch event {
        case .fetchStarted(let scope, let token):
            if state.summary == nil {
                state.summary = FetchSummary(device: device.name)
                state.tokensBefore = try? device.store.tokenCache()
            }
            state.databaseStart[scope] = .some(token)
        case .tokenExpired(.database, let scope, _):
            state.databaseStart[scope] = .some(nil)
        case .tokenExpired(.recordZone, let scope, let zoneID?):
            state.zoneStart[ZoneKey(scope: scope, zoneID: zoneID)] = .some(nil)
        case .tokenReceived(let receipt) where receipt.kind == .database:
            replayDatabaseBatch(receipt, device: device, state: &state)
        case .tokenReceived(let receipt):
            replayZoneBatch(receipt, device: device, state: &state)
        case .fetchRunFinished:
            close(device: device, state: &state)
        default:
            break
        }
    }

    /// Ends every fetch still open (at the end of a step).
    func closeAll(devices: [SimulatedDevice]) {
        for device in devices {
            guard var state = states[device.name], state.summary != nil else { continue }
            close(device: device, state: &state)
            states[device.name] = state
        }
    }

    /// Forgets everything (a new run).
    func reset() {
        states = [:]
    }

    private func close(device: SimulatedDevice, state: inout DeviceState) {
        guard var summary = state.summary else { return }
        let after = try? device.store.tokenCache()
        summary.tokenChanged = after != state.tokensBefore
        state = DeviceState()
        finished(summary)
    }

    private func database(_ scope: DatabaseScope, of device: SimulatedDevice) -> DatabaseID {
        DatabaseID(container: device.service.container, environment: device.service.environment, scope: scope)
    }

    private func replayDatabaseBatch(_ receipt: TokenReceipt, device: SimulatedDevice, state: inout DeviceState) {
        let scope = receipt.scope
        let start = state.databaseStart[scope] ?? nil
        let caller = device.service.caller
        let db = database(scope, of: device)
        let answer = try? device.service.server.withEngine { (engine) throws(CloudError) in
            try engine.fetchDatabaseChanges(caller: caller, database: db, since: start, resultsLimit: nil)
        }
        state.databaseStart[scope] = .some(receipt.token)
        if state.summary == nil {
            state.summary = FetchSummary(device: device.name)
            state.tokensBefore = try? device.store.tokenCache()
        }
        state.summary?.batches += 1
        state.summary?.moreComing = receipt.moreComing
        if let answer, answer.serverChangeToken == receipt.token {
            for change in answer.changes {
                switch change {
                case .zoneChanged(let zoneID): state.summary?.zones.append(zoneID)
                case .zoneRemoved(let zoneID, let reason): state.summary?.deletedZones.append(RemovedZone(zoneID: zoneID, reason: reason))
                }
            }
            report(.databaseChanges(device: device.name, scope: scope, batch: receipt.batchIndex, answer))
        } else {
            report(.note(device: device.name, "received a \(scope.rawValue) database batch (token …\(receipt.token.shortForm), \(receipt.changeCount) changes)"))
        }
        if !receipt.moreComing {
            // The zone fetches that follow start from the tokens cached now.
            for zone in (try? device.store.knownZones(in: scope)) ?? [] {
                let key = ZoneKey(scope: scope, zoneID: zone.zoneID)
                state.zoneStart[key] = .some(try? device.store.zoneToken(for: zone.zoneID, in: scope))
            }
        }
    }

    private func replayZoneBatch(_ receipt: TokenReceipt, device: SimulatedDevice, state: inout DeviceState) {
        guard let zoneID = receipt.zoneID else { return }
        let scope = receipt.scope
        let key = ZoneKey(scope: scope, zoneID: zoneID)
        let start = state.zoneStart[key] ?? nil
        let caller = device.service.caller
        let db = database(scope, of: device)
        let request = ZoneChangesRequest(zoneID: zoneID, previousServerChangeToken: start, resultsLimit: nil)
        let answer = try? device.service.server.withEngine { (engine) throws(CloudError) in
            try engine.fetchRecordZoneChanges(caller: caller, database: db, [request]).first?.get()
        }
        state.zoneStart[key] = .some(receipt.token)
        if state.summary == nil {
            state.summary = FetchSummary(device: device.name)
            state.tokensBefore = try? device.store.tokenCache()
        }
        state.summary?.batches += 1
        state.summary?.moreComing = receipt.moreComing
        if let answer = answer ?? nil, answer.serverChangeToken == receipt.token {
            for change in answer.changes {
                switch change {
                case .changed(let record): state.summary?.records.append(record)
                case .deleted(let recordID, let type): state.summary?.deletions.append(DeletedRecord(recordID: recordID, recordType: type))
                }
            }
            report(.zoneChanges(device: device.name, scope: scope, batch: receipt.batchIndex, answer))
        } else {
            report(.note(device: device.name, "received a batch of zone \(zoneID.zoneName) (token …\(receipt.token.shortForm), \(receipt.changeCount) changes)"))
        }
    }
}
