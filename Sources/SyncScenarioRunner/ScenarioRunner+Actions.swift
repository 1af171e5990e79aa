import SyncCore
import SyncClient
import SyncScenario
import SyncServer
import SyncSimulation
import SyncWorlds

extension ScenarioRunner {
    /// Runs an action step; returns the error it ended with, if any.
    func perform(_ kind: StepKind) async -> CloudError? {
        do {
            switch kind {
            case .say, .ask, .expect:
                return nil
            case .fault, .clearFaults:
                applyFaults(kind)
                return nil
            case .createZone(let action):
                return try await onDevice(action.device, "create zone \(action.zone)") { device in
                    try await self.createZone(action, on: device)
                }
            case .deleteZone(let action):
                return try await onDevice(action.device, "delete zone \(action.zone)") { device in
                    try await self.deleteZone(action, on: device)
                }
            case .purgeZone(let action):
                return try await onDevice(action.device, "purge zone \(action.zone) (the user deleted its data in Settings)") { device in
                    let zoneID = try await self.zoneID(action.zone, for: device, in: action.database)
                    try await self.connection(of: device).purgeRecordZone(in: action.database, zoneID)
                    self.record(.note(device: device.name, "zone \(zoneID.zoneName) purged on the server"))
                }
            case .encryptedDataReset(let name):
                return try await onDevice(name, "encrypted-data reset (every private zone goes)") { device in
                    try await self.connection(of: device).encryptedDataReset()
                    self.record(.note(device: device.name, "\(self.user(of: device))'s encrypted data reset: every zone of the private database is gone from the server"))
                }
            case .shareZone(let action), .revokeShare(let action):
                let revoke: Bool = if case .revokeShare = kind { true } else { false }
                let verb = revoke ? "stop sharing" : "share"
                return try await onDevice(action.device, "\(verb) zone \(action.zone) with \(action.participants.joined(separator: ", "))") { device in
                    let zoneID = try await self.zoneID(action.zone, for: device, in: .private)
                    if revoke {
                        try await self.connection(of: device).revokeShare(zoneID, from: action.participants)
                    } else {
                        try await self.connection(of: device).shareZone(zoneID, with: action.participants)
                    }
                    self.record(.note(device: device.name, "zone \(zoneID.zoneName) \(revoke ? "no longer shared with" : "shared with") \(action.participants.joined(separator: ", "))"))
                }
            case .saveShare(let action):
                return try await onDevice(action.device, "save the CKShare of zone \(action.zone)") { device in
                    try await self.saveShare(action, on: device)
                }
            case .removeParticipant(let action):
                let names = action.participants.map(\.user).joined(separator: ", ")
                return try await onDevice(action.device, "remove \(names) from the CKShare of zone \(action.zone)") { device in
                    try await self.removeParticipants(action, on: device)
                }
            case .resolveShare(let action), .acceptShare(let action):
                let accepting: Bool = if case .acceptShare = kind { true } else { false }
                return try await onDevice(action.device, "\(accepting ? "accept" : "resolve") the share of zone \(action.zone)") { device in
                    try await self.resolveShare(action, on: device, accepting: accepting)
                }
            case .save(let action):
                return try await onDevice(action.device, "save \(action.recordName) in \(action.zone) (not sent yet)") { device in
                    try await self.save(action, on: device)
                }
            case .delete(let action):
                return try await onDevice(action.device, "delete \(action.recordName) in \(action.zone) (not sent yet)") { device in
                    let zoneID = try await self.zoneID(action.zone, for: device, in: action.database)
                    try self.engine(of: device).delete(RecordID(recordName: action.recordName, zoneID: zoneID))
                }
            case .send(let name, let merge):
                return try await onDevice(name, merge ? "send pending changes" : "send pending changes without merging conflicts") { device in
                    try self.requireOnline(device, "send")
                    self.openSends[device.name] = SendSummary(device: device.name)
                    try await self.send(from: device, mergeConflicts: merge)
                }
            case .fetch(let action):
                return try await onDevice(action.device, "fetch (\(summary(of: kind)))") { device in
                    try self.requireOnline(device, "fetch")
                    try await self.fetch(action, on: device)
                }
            case .sync(let name):
                return try await onDevice(name, "sync (send, then fetch)") { device in
                    try self.requireOnline(device, "sync")
                    self.openSends[device.name] = SendSummary(device: device.name)
                    try await self.send(from: device, mergeConflicts: true)
                    try await self.engine(of: device).fetchChanges()
                }
            case .subscribe(let setup):
                try await subscribe(setup)
                return nil
            case .unsubscribe(let action):
                let service = try self.service(for: action.owner)
                simulation.note("unsubscribe \(action.subscriptionID) (\(action.database.rawValue))", device: action.owner.device)
                let results = try await service.modifySubscriptions(in: action.database, saving: [], deleting: [action.subscriptionID])
                if case .failure(let error)? = results.first { throw error }
                record(.note(device: action.owner.device, "subscription \(action.subscriptionID) deleted"))
                return nil
            case .online(let name):
                let device = try self.device(name)
                if case .failed(let error) = await simulation.setOnline(true, device: device) { return error }
                return nil
            case .offline(let name):
                let device = try self.device(name)
                if case .failed(let error) = await simulation.setOnline(false, device: device) { return error }
                record(.note(device: name, "offline: the push service keeps only the latest notification for it"))
                return nil
            case .advance(let milliseconds):
                await simulation.advance(by: milliseconds)
                return nil
            case .compact(let action):
                let service = try self.service(for: action.principal)
                var zoneID: RecordZoneID?
                if let zone = action.zone {
                    let device = action.principal.device.flatMap { simulation.device(named: $0) }
                    zoneID = try await self.zoneID(zone, user: service.userRecordName, device: device, in: action.database ?? .private)
                }
                simulation.note("compact history (keep last \(action.keepLast))", device: action.principal.device)
                try await service.compactHistory(in: action.database, zoneID: zoneID, keepLast: action.keepLast)
                let what = zoneID.map { "zone \($0.zoneName)" } ?? (action.database.map { "the \($0.rawValue) database" } ?? "every database")
                record(.note(device: action.principal.device, "history of \(what) compacted, keeping the last \(Self.count(action.keepLast, "change")): older tokens expire"))
                return nil
            case .burst(let action):
                return try await burst(action)
            case .modifyRecords(let action):
                return try await onDevice(action.device, "records/modify (the app's own request, no sync engine)") { device in
                    try await self.modifyRecords(action, on: device)
                }
            case .signIn(let action):
                return try signIn(action)
            case .checkAccount(let name):
                return try await onDevice(name, "check the signed-in account") { _ in
                    _ = try await self.checkAccount(name)
                }
            case .deploySchema:
                try deploySchema()
                return nil
            case .importSchema(let action):
                try importSchema(action)
                return nil
            case .query(let action):
                return try await onDevice(action.device, "records/query of \(action.recordType) in \(action.zone)") { device in
                    try self.requireOnline(device, "query")
                    try await self.query(action, on: device)
                }
            }
        } catch {
            return Self.cloudError(error)
        }
    }

    static func cloudError(_ error: any Error) -> CloudError {
        if let cloud = error as? CloudError { return cloud }
        return CloudError(.internalError, String(describing: error))
    }

    func device(_ name: String) throws -> SyncDevice {
        guard let device = simulation.device(named: name) else {
            throw CloudError(.invalidArguments, "There is no device named '\(name)' in this scenario.")
        }
        return device
    }

    func requireOnline(_ device: SyncDevice, _ what: String) throws {
        guard device.isOnline else {
            throw CloudError(.networkFailure, "\(device.name) is offline, so it cannot \(what); bring it back with an 'online' step first.")
        }
    }

    /// Runs `body` as a simulation action of the device (logged, then pushes due by now delivered).
    private func onDevice(_ name: String, _ description: String, _ body: @escaping (SyncDevice) async throws -> Void) async throws -> CloudError? {
        let device = try self.device(name)
        let outcome = await simulation.perform(description, on: device, sending: false) { device in try await body(device) }
        return outcome.error
    }

    /// A connection for whoever acts: the device's own, or one for the user.
    func service(for principal: Principal) throws -> any CloudService {
        switch principal {
        case .device(let name):
            return try device(name).connection
        case .user(let name):
            return try simulation.server.connect(user: name, container: simulation.setup.container)
        }
    }

    // MARK: Zones

    /// The zone a scenario names, for a device: its user's own zone, a named
    /// owner's, or in the shared database the one zone of that name shared with it.
    func zoneID(_ zone: ZoneRef, for device: SyncDevice, in scope: DatabaseScope) async throws -> RecordZoneID {
        try await zoneID(zone, user: user(of: device), device: device, in: scope)
    }

    func zoneID(_ zone: ZoneRef, user: String, device: SyncDevice?, in scope: DatabaseScope) async throws -> RecordZoneID {
        if let owner = zone.ownerName { return RecordZoneID(zoneName: zone.zoneName, ownerName: owner) }
        guard scope == .shared else { return RecordZoneID(zoneName: zone.zoneName, ownerName: user) }
        var candidates = Set(((try? device?.store.knownZones(in: .shared)) ?? []).map(\.zoneID).filter { $0.zoneName == zone.zoneName })
        if candidates.isEmpty, let device {
            let listed = (try? await connection(of: device).listRecordZones(in: .shared)) ?? []
            candidates = Set(listed.map(\.zoneID).filter { $0.zoneName == zone.zoneName })
        }
        let sorted = candidates.sorted()
        guard sorted.count <= 1 else {
            let names = sorted.map { "\($0.zoneName)@\($0.ownerName)" }.joined(separator: ", ")
            throw CloudError(.invalidArguments, "Several zones named '\(zone.zoneName)' are shared with \(user) (\(names)); name the owner, as in \(zone.zoneName)@\(sorted[0].ownerName).")
        }
        guard let only = sorted.first else {
            throw CloudError(.zoneNotFound, "No zone named '\(zone.zoneName)' is shared with \(user).")
        }
        return only
    }

    private func createZone(_ action: ZoneAction, on device: SyncDevice) async throws {
        let zoneID = try await zoneID(action.zone, for: device, in: action.database)
        let results = try await self.connection(of: device).modifyRecordZones(in: action.database, saving: [zoneID], deleting: [])
        if case .failure(let error)? = results.first { throw error }
        var batch = StoreBatch(scope: .private)
        batch.zonesConfirmed = [zoneID]
        batch.purgedZonesRemoved = [zoneID]
        try device.store.apply(batch)
        record(.note(device: device.name, "zones/modify: zone \(zoneID.zoneName) created"))
    }

    private func deleteZone(_ action: ZoneAction, on device: SyncDevice) async throws {
        let zoneID = try await zoneID(action.zone, for: device, in: action.database)
        let results = try await self.connection(of: device).modifyRecordZones(in: action.database, saving: [], deleting: [zoneID])
        if case .failure(let error)? = results.first { throw error }
        let count = try device.store.records(in: action.database, zoneID: zoneID).count
        var batch = StoreBatch(scope: action.database)
        batch.zoneRemovals = [ZoneRemoval(zoneID: zoneID)]
        try device.store.apply(batch)
        record(.note(device: device.name, "zones/modify: zone \(zoneID.zoneName) deleted (and \(Self.count(count, "cached record")) here)"))
    }

    // MARK: Records

    private func save(_ action: SaveAction, on device: SyncDevice) async throws {
        let zoneID = try await zoneID(action.zone, for: device, in: action.database)
        let recordID = RecordID(recordName: action.recordName, zoneID: zoneID)
        let engine = engine(of: device)
        let cached = try engine.record(recordID)
        guard cached != nil || action.recordType != nil else {
            throw CloudError(
                .invalidArguments,
                "\(device.name) has no record '\(action.recordName)' in its cache, so the save needs the record's type: add 'type:' to the step.",
                recordName: action.recordName, zoneID: zoneID)
        }
        var record = cached ?? Record(recordID: recordID, recordType: action.recordType ?? "")
        if let type = action.recordType { record.recordType = type }
        for field in action.fields { record[field.name] = field.value }
        for name in action.removedFields { record[name] = nil }
        try engine.save(record, savePolicy: action.savePolicy)
    }

    /// Sends the device's pending changes with its engine, each save with its own save policy.
    func send(from device: SyncDevice, mergeConflicts: Bool) async throws {
        if mergeConflicts {
            try await engine(of: device).sendChanges()
        } else {
            // The same engine, told to give up at the first conflict.
            let engine = DeviceSyncEngine(
                service: connection(of: device), store: device.store, clock: simulation.clock,
                configuration: DeviceSyncEngine.Configuration(maxConflictRetries: 0)
            ) { [unowned self] event in self.observe(event, on: device.name) }
            try await engine.sendChanges()
        }
    }

    // MARK: Fetching

    private func fetch(_ action: FetchAction, on device: SyncDevice) async throws {
        takeObservedFetches()
        fetches.beginScenarioFetch(on: device)
        defer {
            takeObservedFetches()
            fetches.endScenarioFetch()
        }
        let fetcher = ScenarioFetcher(device: device, connection: connection(of: device), engine: engine(of: device)) { [unowned self] kind in
            self.record(kind)
        }
        let limits = ScenarioFetcher.Limits(
            resultsLimit: action.resultsLimit, fetchAllChanges: action.fetchAllChanges, interruptAfter: action.interruptAfter,
            crash: action.crash)
        let summary: FetchSummary
        switch action.target {
        case .databaseChanges:
            guard action.database != .public else {
                throw CloudError(.invalidArguments, "The public database does not support change fetching; fetch the private or shared database.")
            }
            let start = try startToken(action.token, device: device, scope: action.database, zoneID: nil)
            let (result, token) = try await fetcher.fetchDatabaseChanges(scope: action.database, from: start, limits: limits)
            summary = result
            if let name = action.capture, let token {
                captures[name] = CapturedTokens(database: (action.database, token))
            }
        case .zoneChanges(let refs):
            var zones: [(zoneID: RecordZoneID, token: ServerChangeToken?)] = []
            for ref in refs {
                let zoneID = try await zoneID(ref, for: device, in: action.database)
                zones.append((zoneID, try startToken(action.token, device: device, scope: action.database, zoneID: zoneID)))
            }
            let fetched = try await fetcher.fetchZoneChanges(
                scope: action.database, zones: zones, desiredKeys: action.desiredKeys, limits: limits)
            summary = fetched.0
            if let name = action.capture {
                captures[name] = CapturedTokens(zones: fetched.1.map { (action.database, $0.0, $0.1) })
            }
        }
        lastFetchByDevice[device.name] = summary
        lastFetch = summary
    }

    /// The token a fetch starts from.
    private func startToken(_ choice: TokenChoice, device: SyncDevice, scope: DatabaseScope, zoneID: RecordZoneID?) throws -> ServerChangeToken? {
        switch choice {
        case .noToken:
            return nil
        case .cached:
            if let zoneID { return try device.store.zoneToken(for: zoneID, in: scope) }
            return try device.store.databaseToken(for: scope)
        case .captured(let name):
            guard let captured = captures[name] else {
                throw CloudError(.invalidArguments, "No token was captured as '\(name)': the fetch that captures it failed or has not run.")
            }
            if let zoneID, let own = captured.zones.first(where: { $0.zoneID == zoneID && $0.scope == scope }) { return own.token }
            if zoneID == nil, let database = captured.database, database.scope == scope { return database.token }
            let all = captured.all
            guard all.count == 1, let only = all.first else {
                let target = zoneID.map { "zone \($0.zoneName)" } ?? "the \(scope.rawValue) database"
                throw CloudError(.invalidArguments, "'\(name)' holds \(Self.count(all.count, "token")) and none of them is for \(target); capture that fetch's token under its own name.")
            }
            return only
        }
    }

    // MARK: Subscriptions

    func subscribe(_ setup: SubscriptionSetup) async throws {
        let service = try self.service(for: setup.owner)
        let device = setup.owner.device.flatMap(simulation.device(named:))
        var zoneID: RecordZoneID?
        if let zone = setup.zone { zoneID = try await self.zoneID(zone, user: service.userRecordName, device: device, in: setup.database) }
        let subscription = try setup.subscription(zoneID: zoneID)
        simulation.note("subscribe \(setup.subscriptionID) (\(setup.database.rawValue))", device: setup.owner.device)
        let results = try await service.modifySubscriptions(in: setup.database, saving: [subscription], deleting: [])
        if case .failure(let error)? = results.first { throw error }
        let owner = setup.owner.device ?? service.userRecordName
        record(.note(device: nil, "\(owner) subscribed: \(setup.subscriptionID) (\(setup.type.rawValue) subscription, \(setup.database.rawValue) database)"))
    }

    // MARK: Writers

    private func burst(_ action: BurstAction) async throws -> CloudError? {
        let device = try self.device(action.device)
        let zoneID = try await zoneID(action.zone, for: device, in: action.database)
        openSends[device.name] = openSends[device.name] ?? SendSummary(device: device.name)
        simulation.note("write burst: \(action.count) saves of \(action.recordType)", device: device.name)
        for number in 1...max(1, action.count) {
            let recordID = RecordID(recordName: action.recordName(number), zoneID: zoneID)
            let outcome = await simulation.perform("save \(recordID.recordName)", on: device, sending: false) { device in
                var record = try device.engine.record(recordID) ?? Record(recordID: recordID, recordType: action.recordType)
                for field in action.fields(number) { record[field.name] = field.value }
                try device.engine.save(record)
                if action.send == .each {
                    try self.requireOnline(device, "send")
                    try await device.engine.sendChanges()
                }
            }
            if let error = outcome.error { return error }
            if action.intervalMs > 0 { await simulation.advance(by: action.intervalMs) }
        }
        if action.send == .end {
            let outcome = await simulation.perform("send the burst", on: device, sending: false) { device in
                try self.requireOnline(device, "send")
                try await device.engine.sendChanges()
            }
            return outcome.error
        }
        return nil
    }
}
