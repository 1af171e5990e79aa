import SyncCore
import SyncClient
import SyncScenario
import SyncServer
import SyncSimulation
import SyncWorlds

/// Another account signed in on a device: the connection and engine the
/// device now syncs with, over the cache it already had.
struct SignedInAccount {
    var user: String
    var connection: any CloudService
    var engine: DeviceSyncEngine
}

extension ScenarioRunner {
    // MARK: Accounts

    /// The user signed in on the device now (a `signIn` step changes it).
    func user(of device: SyncDevice) -> String {
        signedIn[device.name]?.user ?? device.user
    }

    /// The connection the device's steps use: the signed-in account's.
    func connection(of device: SyncDevice) -> any CloudService {
        signedIn[device.name]?.connection ?? device.connection
    }

    /// The sync engine the device's steps use: the signed-in account's.
    func engine(of device: SyncDevice) -> DeviceSyncEngine {
        signedIn[device.name]?.engine ?? device.engine
    }

    func signIn(_ action: SignInAction) throws -> CloudError? {
        let device = try self.device(action.device)
        let previous = user(of: device)
        guard previous != action.user else {
            record(.note(device: device.name, "\(action.user) is already signed in"))
            return nil
        }
        simulation.note("\(action.user) signs in (was \(previous))", device: device.name)
        let base = try simulation.server.connect(user: action.user, container: simulation.setup.container)
        let connection = ObservedConnection(base: base, deviceName: device.name, tap: tap)
        let engine = DeviceSyncEngine(service: connection, store: device.store, clock: simulation.clock) { [unowned self] event in
            self.observe(event, on: device.name)
        }
        signedIn[device.name] = SignedInAccount(user: action.user, connection: connection, engine: engine)
        if cacheOwners[device.name] == nil { cacheOwners[device.name] = device.user }
        let cached = try device.store.allRecords(in: .private).count + device.store.allRecords(in: .shared).count
        record(.note(
            device: device.name,
            "\(action.user) signed in instead of \(previous); the cache still holds \(previous)'s \(Self.count(cached, "record")) and tokens"))
        return nil
    }

    /// The app compares the signed-in user record name with the one its
    /// cache belongs to; when they differ, it deletes the whole cache.
    func checkAccount(_ name: String) async throws -> CloudError? {
        let device = try self.device(name)
        let signedInUser = connection(of: device).userRecordName
        let owner = cacheOwners[device.name] ?? device.user
        guard signedInUser != owner else {
            record(.note(device: device.name, "signed-in user record name is \(signedInUser), the cache's owner: nothing to do"))
            return nil
        }
        var removedRecords = 0
        var removedTokens = 0
        for scope in [DatabaseScope.private, .shared] {
            var batch = StoreBatch(scope: scope)
            let zones = try device.store.knownZones(in: scope).map(\.zoneID)
            let records = try device.store.allRecords(in: scope)
            removedRecords += records.count
            if try device.store.databaseToken(for: scope) != nil {
                batch.databaseToken = .remove
                removedTokens += 1
            }
            for zoneID in zones {
                if try device.store.zoneToken(for: zoneID, in: scope) != nil { removedTokens += 1 }
                batch.zoneRemovals.append(ZoneRemoval(zoneID: zoneID))
            }
            batch.deletedRecordIDs = records.map(\.recordID)
            batch.pendingRemovals = try device.store.pendingChanges().filter { $0.scope == scope }.map(\.key)
            batch.purgedZonesRemoved = try device.store.purgedZones(in: scope)
            if !batch.isEmpty { try device.store.apply(batch) }
        }
        cacheOwners[device.name] = signedInUser
        record(.note(
            device: device.name,
            "signed-in user record name \(signedInUser) is not \(owner), whose data the cache holds: deleted \(Self.count(removedRecords, "cached record")) and \(Self.count(removedTokens, "token")); the next sync starts from no token"))
        return nil
    }

    // MARK: The app's own records/modify

    /// Sends the device's pending record changes with `records/modify`
    /// requests of at most `perRequest` operations, zone by zone, as an app
    /// without a sync engine would: no zone is created first, and the first
    /// error ends the step (the changes not sent stay queued).
    func modifyRecords(_ action: ModifyRecordsAction, on device: SyncDevice) async throws {
        try requireOnline(device, "send")
        let scope = action.database
        var onlyZone: RecordZoneID?
        if let zone = action.zone { onlyZone = try await zoneID(zone, for: device, in: scope) }
        let pending = try device.store.pendingChanges().filter {
            $0.isRecordChange && $0.scope == scope && (onlyZone == nil || $0.zoneID == onlyZone)
        }
        var items: [(PendingChange?, RecordOperation)] = []
        if let onlyZone {
            for new in action.records {
                var record = Record(recordID: RecordID(recordName: new.recordName, zoneID: onlyZone), recordType: new.recordType)
                for field in new.fields { record[field.name] = field.value }
                items.append((nil, .save(record, policy: .ifServerRecordUnchanged)))
            }
        }
        guard !pending.isEmpty || !items.isEmpty else {
            record(.note(device: device.name, "records/modify: nothing to send"))
            return
        }
        openSends[device.name] = openSends[device.name] ?? SendSummary(device: device.name)
        let byZone = Dictionary(grouping: pending, by: \.zoneID)
        for zoneID in Set(byZone.keys).union(onlyZone.map { [$0] } ?? []).sorted() {
            let changes = (byZone[zoneID] ?? []).sorted { ($0.recordName ?? "") < ($1.recordName ?? "") }
            var operations = zoneID == onlyZone ? items : []
            for change in changes {
                guard let operation = try operation(for: change, device: device) else { continue }
                operations.append((change, operation))
            }
            let size = action.perRequest ?? operations.count
            for start in stride(from: 0, to: operations.count, by: max(1, size)) {
                let chunk = Array(operations[start..<min(start + size, operations.count)])
                try await sendRequest(chunk, scope: scope, zoneID: zoneID, device: device)
            }
        }
    }

    private func operation(for change: PendingChange, device: SyncDevice) throws -> RecordOperation? {
        guard let recordName = change.recordName else { return nil }
        let recordID = RecordID(recordName: recordName, zoneID: change.zoneID)
        if change.kind == .saveRecord {
            guard let local = try device.store.record(recordID, in: change.scope) else { return nil }
            return .save(local, policy: change.savePolicy)
        }
        return .delete(recordID, recordType: change.recordType)
    }

    private func sendRequest(
        _ items: [(PendingChange?, RecordOperation)], scope: DatabaseScope, zoneID: RecordZoneID, device: SyncDevice
    ) async throws {
        let operations = items.map(\.1)
        let sent = items.map(\.0)
        guard !operations.isEmpty else { return }
        let results: [Result<RecordOperationResult, CloudError>]
        do {
            results = try await connection(of: device).modifyRecords(
                in: scope, zoneID: zoneID, operations: operations, atomic: true, clientChangeTokenData: nil)
        } catch {
            let cloud = Self.cloudError(error)
            record(.note(
                device: device.name,
                "records/modify of \(Self.count(operations.count, "operation")) in zone \(zoneID.zoneName) failed as a whole: nothing applied, the changes stay queued"))
            throw cloud
        }
        var batch = StoreBatch(scope: scope)
        var saved: [RecordID] = []
        var deleted: [RecordID] = []
        var firstError: CloudError?
        for (change, result) in zip(sent, results) {
            switch result {
            case .success(.saved(let record)):
                batch.savedRecords.append(record)
                if let change { batch.pendingRemovals.append(change.key) }
                saved.append(record.recordID)
            case .success(.deleted(let recordID, _)):
                batch.deletedRecordIDs.append(recordID)
                if let change { batch.pendingRemovals.append(change.key) }
                deleted.append(recordID)
            case .failure(let error):
                firstError = firstError ?? error
            }
        }
        if !saved.isEmpty || !deleted.isEmpty { batch.zonesConfirmed.append(zoneID) }
        if !batch.isEmpty { try device.store.apply(batch) }
        if !saved.isEmpty || !deleted.isEmpty {
            observe(.changesSent(scope: scope, zoneID: zoneID, saved: saved, deleted: deleted), on: device.name)
        }
        if let firstError { throw firstError }
    }
}
