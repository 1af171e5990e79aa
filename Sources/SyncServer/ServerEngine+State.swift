import Foundation
import SyncCore
import SyncWire

extension ServerEngine {
    // MARK: Export

    /// The whole state, for `admin/export`. Does not change the engine.
    public func exportState() -> ServerStateFile {
        snapshot(randomSeed: nil).file()
    }

    /// The whole state for a checkpoint: the engine's random choices restart
    /// from a seed written into the file, so an engine restored from it makes
    /// exactly the choices this one makes from now on.
    public func checkpointState() -> ServerStateFile {
        checkpointSnapshot().file()
    }

    /// ``checkpointState()`` in two steps: the snapshot is taken now, in time
    /// that does not grow with the records (it shares the engine's collections,
    /// copy-on-write); ``ServerStateSnapshot/file()`` builds the state file
    /// from it later, on any thread, while the engine goes on changing.
    public func checkpointSnapshot() -> ServerStateSnapshot {
        let seed = random.next()
        random = SeededRandom(seed: seed)
        return snapshot(randomSeed: seed)
    }

    private func snapshot(randomSeed: UInt64?) -> ServerStateSnapshot {
        func zone(_ zone: ZoneState) -> ServerStateSnapshot.Zone {
            ServerStateSnapshot.Zone(
                zoneID: zone.zoneID, incarnation: zone.incarnation, records: zone.records, tombstones: zone.tombstones,
                lastSequence: zone.log.lastSequence, compactedThrough: zone.compactedThrough, clientChangeTokenData: zone.clientChangeTokenData,
                participants: zone.participants, share: zone.share, parents: zone.parents, recordShares: zone.recordShares,
                limitedParticipants: zone.limitedParticipants)
        }
        func log(_ log: SyncServer.DatabaseLog) -> ServerStateSnapshot.Log {
            ServerStateSnapshot.Log(
                incarnation: log.incarnation, lastSequence: log.log.lastSequence, compactedThrough: log.compactedThrough, entries: log.entries)
        }
        let containers = containers.map { key, state in
            ServerStateSnapshot.Container(
                key: key, publicZone: zone(state.publicZone),
                users: state.users.mapValues { dbs in
                    ServerStateSnapshot.Databases(
                        user: dbs.user, privateZones: dbs.privateZones.mapValues(zone), removedZoneReasons: dbs.removedZoneReasons,
                        privateLog: log(dbs.privateLog), sharedZones: dbs.sharedZones, sharedLog: log(dbs.sharedLog))
                }, schema: state.schema)
        }
        return ServerStateSnapshot(
            historyID: historyID, nextChangeTag: nextChangeTag, randomSeed: randomSeed, users: users, names: names, containers: containers,
            assets: assets)
    }
}

extension ServerEngine {
    // MARK: Import

    /// Replaces the whole state with a state file's, or explains what is
    /// wrong with it (then nothing changes).
    ///
    /// With `keepingHistory` (restoring a checkpoint, which must carry its
    /// random seed) tokens issued before the checkpoint still work. Without
    /// it (`admin/import`), the state gets a new history ID, so every token
    /// issued before expires with `changeTokenExpired`, and users keep their
    /// web auth tokens from the file.
    public func importState(_ file: ServerStateFile, keepingHistory: Bool) throws(CloudError) {
        guard file.format == ServerStateFile.formatName else {
            throw StateFileError.invalid("its 'format' is '\(file.format.prefix(40))', not '\(ServerStateFile.formatName)'")
        }
        guard file.version == ServerStateFile.currentVersion else {
            throw StateFileError.invalid("it is version \(file.version); this server reads version \(ServerStateFile.currentVersion)")
        }
        var newAccounts: [String: UserAccount] = [:]
        for user in file.users {
            do { try Validation.checkName(user.name, what: "user name") } catch { throw StateFileError.invalid(error.reason) }
            guard !user.webAuthToken.isEmpty, newAccounts[user.name] == nil else {
                throw StateFileError.invalid("user '\(user.name)' appears twice or has an empty webAuthToken")
            }
            newAccounts[user.name] = UserAccount(name: user.name, webAuthToken: user.webAuthToken)
        }
        var tokens = Set<String>()
        for account in newAccounts.values where !tokens.insert(account.webAuthToken).inserted {
            throw StateFileError.invalid("two users share one webAuthToken")
        }
        var builder = StateBuilder(engine: self)
        var newContainers: [ContainerKey: ContainerState] = [:]
        for container in file.containers {
            let key = ContainerKey(container: container.container, environment: container.environment)
            guard newContainers[key] == nil else {
                throw StateFileError.invalid("container '\(container.container)' (\(container.environment.rawValue)) appears twice")
            }
            let publicZone = try builder.zone(container.publicZone, expectedOwner: RecordZoneID.publicOwnerName)
            guard publicZone.zoneID.isDefaultZone else {
                throw StateFileError.invalid("the public zone of '\(container.container)' must be \(RecordZoneID.defaultZoneName)")
            }
            let state = ContainerState(publicZone: publicZone)
            if let text = container.schema {
                do {
                    state.schema = try SchemaLanguage.parse(text)
                } catch {
                    throw StateFileError.invalid("the schema of '\(container.container)' (\(container.environment.rawValue)) does not parse: line \(error)")
                }
            }
            for dbs in container.users {
                guard newAccounts[dbs.user] != nil else {
                    throw StateFileError.invalid("container '\(container.container)' has databases of '\(dbs.user)', who is not in 'users'")
                }
                guard state.users[dbs.user] == nil else {
                    throw StateFileError.invalid("user '\(dbs.user)' has two sets of databases in '\(container.container)'")
                }
                let databases = try builder.databases(dbs)
                state.users[dbs.user] = databases
                for zone in databases.privateZones.values {
                    var shares = zone.recordShares.map { ($0.key, $0.value) }
                    if let share = zone.share { shares.append((ZoneShare.recordName, share)) }
                    for (name, share) in shares {
                        guard state.sharesByGUID.updateValue(RecordID(recordName: name, zoneID: zone.zoneID), forKey: share.shortGUID) == nil else {
                            throw StateFileError.invalid("two shares in '\(container.container)' have the short GUID '\(share.shortGUID)'")
                        }
                    }
                }
            }
            newContainers[key] = state
        }
        var newAssets: [String: Data] = [:]
        for asset in file.assets ?? [] {
            guard let data = Data(base64Encoded: asset.data), Self.checksum(of: data) == asset.fileChecksum else {
                throw StateFileError.invalid("asset '\(asset.fileChecksum.prefix(44))' is not base64 data with that checksum")
            }
            newAssets[asset.fileChecksum] = data
        }
        let newHistory: UInt64
        var newRandom = random
        if keepingHistory {
            guard let seed = file.randomSeed else { throw StateFileError.invalid("a checkpoint needs its 'randomSeed'") }
            newRandom = SeededRandom(seed: try Hex.value(seed, "randomSeed"))
            newHistory = try Hex.value(file.historyID, "historyID")
        } else {
            newHistory = newRandom.next()
        }
        // Nothing can fail from here on.
        random = newRandom
        names = builder.names
        accounts = newAccounts
        containers = newContainers
        assets = newAssets
        historyID = newHistory
        nextChangeTag = max(file.nextChangeTag, builder.highestTag &+ 1, 1)
    }

    /// Empties the server: no containers, zones or records; users keep their
    /// web auth tokens. Tokens issued before expire (new history ID).
    public func resetState() {
        containers = [:]
        assets = [:]
        historyID = random.next()
    }
}

/// Builds engine state from a state file, checking it as it goes.
private struct StateBuilder {
    unowned let engine: ServerEngine
    var names: NameTable
    var highestTag: UInt64 = 0

    init(engine: ServerEngine) {
        self.engine = engine
        names = engine.names
    }

    /// History longer than this many sequence slots per log is refused (memory).
    static let maxSpan: Int64 = 50_000_000

    mutating func zone(_ file: ServerStateFile.Zone, expectedOwner: String?) throws(CloudError) -> ZoneState {
        let zoneID = RecordZoneID(zoneName: file.zoneName, ownerName: file.ownerRecordName)
        let what = "zone '\(file.zoneName)' of \(file.ownerRecordName)"
        if let expectedOwner, file.ownerRecordName != expectedOwner {
            throw StateFileError.invalid("\(what) should belong to \(expectedOwner)")
        }
        do {
            try Validation.checkName(file.zoneName, what: "zone name")
        } catch {
            throw StateFileError.invalid(error.reason)
        }
        let zone = ZoneState(zoneID: zoneID, incarnation: try Hex.value(file.incarnation, "the incarnation of \(what)"))
        guard file.lastSequence >= 0, file.compactedThrough >= 0, file.compactedThrough <= file.lastSequence else {
            throw StateFileError.invalid("\(what) has lastSequence \(file.lastSequence) and compactedThrough \(file.compactedThrough)")
        }
        let tombstoneCount = file.tombstones?.count ?? 0
        var live: [(sequence: Int64, key: String)] = []
        live.reserveCapacity(file.records.count + tombstoneCount)
        var seen = Set<Int64>(minimumCapacity: file.records.count + tombstoneCount)
        // The tables sized once: a zone's records mostly share one type.
        zone.reserveCapacity(adding: file.records.count, ofType: file.records.first.map { names.intern($0.recordType) })
        zone.tombstones.reserveCapacity(tombstoneCount)
        func place(_ sequence: Int64, _ name: String) throws(CloudError) {
            guard sequence >= 1, sequence <= file.lastSequence, seen.insert(sequence).inserted else {
                throw StateFileError.invalid("record '\(name)' in \(what) has sequence \(sequence), outside 1...\(file.lastSequence) or taken")
            }
            live.append((sequence, name))
        }
        for record in file.records {
            guard zone.records[record.recordName] == nil else {
                throw StateFileError.invalid("record '\(record.recordName)' appears twice in \(what)")
            }
            guard let tag = UInt64(record.recordChangeTag, radix: 36) else {
                throw StateFileError.invalid("record '\(record.recordName)' in \(what) has change tag '\(record.recordChangeTag.prefix(20))'")
            }
            var fields = RecordFields()
            do {
                try Validation.checkRecordName(record.recordName)
                try Validation.checkName(record.recordType, what: "record type")
                for name in record.fields.keys.sorted() {
                    guard let field = record.fields[name] else { continue }
                    try Validation.checkFieldName(name)
                    let value = try field.fieldValue(name: name, recordName: record.recordName)
                    try Validation.checkFieldValue(value, field: name, recordName: record.recordName, zoneID: zoneID)
                    fields[name] = value
                }
            } catch {
                throw StateFileError.invalid(error.reason)
            }
            try place(record.sequence, record.recordName)
            highestTag = max(highestTag, tag)
            zone.store(
                SyncServer.StoredRecord(
                    type: names.intern(record.recordType), fields: fields, tag: tag, created: stamp(record.created),
                    modified: stamp(record.modified), sequence: record.sequence),
                name: record.recordName)
        }
        for tombstone in (file.tombstones ?? []).sorted(by: { $0.sequence < $1.sequence }) {
            guard zone.records[tombstone.recordName] == nil, zone.tombstones[tombstone.recordName] == nil else {
                throw StateFileError.invalid("record '\(tombstone.recordName)' in \(what) is both live and deleted, or deleted twice")
            }
            try place(tombstone.sequence, tombstone.recordName)
            zone.tombstones[tombstone.recordName] = SyncServer.Tombstone(type: names.intern(tombstone.recordType), sequence: tombstone.sequence)
            zone.tombstoneQueue.append(tombstone.sequence, tombstone.recordName)
        }
        live.sort { $0.sequence < $1.sequence }
        guard file.lastSequence - (live.first?.sequence ?? file.lastSequence) <= Self.maxSpan else {
            throw StateFileError.invalid("\(what) spans more than \(Self.maxSpan) changes of history")
        }
        zone.log = SequenceLog(restoring: live, lastSequence: file.lastSequence)
        zone.compactedThrough = file.compactedThrough
        if let data = file.clientChangeTokenData {
            guard let decoded = Data(base64Encoded: data) else {
                throw StateFileError.invalid("the clientChangeTokenData of \(what) is not base64")
            }
            zone.clientChangeTokenData = decoded
        }
        zone.participants = Set(file.participants ?? [])
        zone.share = file.share
        zone.parents = file.parents ?? [:]
        zone.recordShares = file.recordShares ?? [:]
        for (name, share) in zone.recordShares {
            if let root = share.rootRecordName { zone.shareOfRoot[root] = name }
        }
        zone.limitedParticipants = (file.limitedParticipants ?? [:]).mapValues(Set.init)
        return zone
    }

    mutating func stamp(_ wire: WireStamp) -> Stamp {
        Stamp(time: wire.timestamp, user: names.intern(wire.userRecordName), device: wire.deviceID.map { names.intern($0) } ?? 0)
    }

    func log(_ file: ServerStateFile.DatabaseLog, what: String) throws(CloudError) -> SyncServer.DatabaseLog {
        var log = SyncServer.DatabaseLog(incarnation: try Hex.value(file.incarnation, "the incarnation of \(what)"))
        guard file.lastSequence >= 0, file.compactedThrough >= 0, file.compactedThrough <= file.lastSequence else {
            throw StateFileError.invalid("\(what) has lastSequence \(file.lastSequence) and compactedThrough \(file.compactedThrough)")
        }
        var live: [(sequence: Int64, key: RecordZoneID)] = []
        var seen = Set<Int64>()
        for entry in file.entries.sorted(by: { $0.sequence < $1.sequence }) {
            let zoneID = RecordZoneID(entry.zoneID)
            guard entry.sequence >= 1, entry.sequence <= file.lastSequence, seen.insert(entry.sequence).inserted,
                  log.entries[zoneID] == nil
            else {
                throw StateFileError.invalid("\(what) lists zone '\(zoneID.zoneName)' twice, or at sequence \(entry.sequence) outside 1...\(file.lastSequence)")
            }
            var removal: ZoneDeletionReason?
            if let reason = entry.removal {
                guard let parsed = ZoneDeletionReason(rawValue: reason) else {
                    throw StateFileError.invalid("\(what): '\(reason)' is not a removal reason")
                }
                removal = parsed
                log.tombstoneQueue.append(entry.sequence, zoneID)
            }
            log.entries[zoneID] = SyncServer.DatabaseLog.Entry(sequence: entry.sequence, removal: removal)
            live.append((entry.sequence, zoneID))
        }
        guard file.lastSequence - (live.first?.sequence ?? file.lastSequence) <= Self.maxSpan else {
            throw StateFileError.invalid("\(what) spans more than \(Self.maxSpan) changes of history")
        }
        log.log = SequenceLog(restoring: live, lastSequence: file.lastSequence)
        log.compactedThrough = file.compactedThrough
        return log
    }

    mutating func databases(_ file: ServerStateFile.UserDatabases) throws(CloudError) -> SyncServer.UserDatabases {
        let privateLog = try log(file.privateLog, what: "the private database log of \(file.user)")
        let sharedLog = try log(file.sharedLog, what: "the shared database log of \(file.user)")
        let dbs = SyncServer.UserDatabases(
            user: file.user, privateIncarnation: privateLog.incarnation, sharedIncarnation: sharedLog.incarnation,
            defaultZoneIncarnation: engine.derivedIncarnation("default-zone-import", file.user))
        dbs.privateLog = privateLog
        dbs.sharedLog = sharedLog
        for zoneFile in file.privateZones {
            guard zoneFile.zoneName != RecordZoneID.defaultZoneName || zoneFile.ownerRecordName == file.user else {
                throw StateFileError.invalid("the default zone of \(file.user) names another owner")
            }
            let zone = try zone(zoneFile, expectedOwner: file.user)
            dbs.privateZones[zoneFile.zoneName] = zone
        }
        for (name, reason) in (file.removedZones ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard let parsed = ZoneDeletionReason(rawValue: reason) else {
                throw StateFileError.invalid("'\(reason)' is not a removal reason (zone '\(name)' of \(file.user))")
            }
            dbs.removedZoneReasons[name] = parsed
        }
        dbs.sharedZones = Set((file.sharedZones ?? []).map(RecordZoneID.init))
        return dbs
    }
}
