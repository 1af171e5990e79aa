import Foundation
import SyncCore
import SyncWire

/// The engine's whole state at one moment (``ServerEngine/checkpointSnapshot()``),
/// holding the engine's own collections (shared copy-on-write, so taking it
/// copies no record), to be made into a ``ServerStateFile`` on any thread.
public struct ServerStateSnapshot: Sendable {
    struct Zone: Sendable {
        var zoneID: RecordZoneID
        var incarnation: UInt64
        var records: [String: StoredRecord]
        var tombstones: [String: Tombstone]
        var lastSequence: Int64
        var compactedThrough: Int64
        var clientChangeTokenData: Data?
        var participants: Set<String>
        var share: ZoneShare?
        var parents: [String: String]
        var recordShares: [String: ZoneShare]
        var limitedParticipants: [String: Set<String>]
    }

    struct Log: Sendable {
        var incarnation: UInt64
        var lastSequence: Int64
        var compactedThrough: Int64
        var entries: [RecordZoneID: SyncServer.DatabaseLog.Entry]
    }

    struct Databases: Sendable {
        var user: String
        var privateZones: [String: Zone]
        var removedZoneReasons: [String: ZoneDeletionReason]
        var privateLog: Log
        var sharedZones: Set<RecordZoneID>
        var sharedLog: Log
    }

    struct Container: Sendable {
        var key: ServerEngine.ContainerKey
        var publicZone: Zone
        var users: [String: Databases]
        var schema: ContainerSchema
    }

    let historyID: UInt64
    let nextChangeTag: UInt64
    let randomSeed: UInt64?
    let users: [UserAccount]
    let names: NameTable
    let containers: [Container]
    let assets: [String: Data]

    /// The records and tombstones it holds, in every zone: what encoding it
    /// costs (counted per zone, without touching a record).
    public var recordCount: Int {
        func count(_ zone: Zone) -> Int { zone.records.count + zone.tombstones.count }
        return containers.reduce(0) { total, container in
            container.users.values.reduce(total + count(container.publicZone)) { total, databases in
                databases.privateZones.values.reduce(total) { $0 + count($1) }
            }
        }
    }

    /// The state file: every list sorted, so the same state always gives the same bytes.
    public func file() -> ServerStateFile {
        let containerFiles = containers.sorted {
            ($0.key.container, $0.key.environment.rawValue) < ($1.key.container, $1.key.environment.rawValue)
        }.map { state in
            ServerStateFile.Container(
                container: state.key.container, environment: state.key.environment, publicZone: zoneFile(state.publicZone),
                users: state.users.keys.sorted().compactMap { name in state.users[name].map(databasesFile) },
                schema: state.schema == ContainerSchema() ? nil : SchemaLanguage.text(of: state.schema))
        }
        return ServerStateFile(
            format: ServerStateFile.formatName, version: ServerStateFile.currentVersion, historyID: Hex.string(historyID),
            nextChangeTag: nextChangeTag, randomSeed: randomSeed.map(Hex.string),
            users: users.map { ServerStateFile.User(name: $0.name, webAuthToken: $0.webAuthToken) },
            containers: containerFiles, push: nil,
            assets: assets.isEmpty ? nil : assets.keys.sorted().map { ServerStateFile.Asset(fileChecksum: $0, data: assets[$0]!.base64EncodedString()) })
    }

    private func wireStamp(_ s: Stamp) -> WireStamp {
        WireStamp(RecordStamp(timestamp: s.time, userRecordName: names[s.user], deviceID: s.device == 0 ? nil : names[s.device]))
    }

    private func zoneFile(_ zone: Zone) -> ServerStateFile.Zone {
        var records: [ServerStateFile.StoredRecord] = []
        records.reserveCapacity(zone.records.count)
        for (name, stored) in zone.records {
            var fields: [String: WireField] = Dictionary(minimumCapacity: stored.fields.count)
            for field in stored.fields { fields[field.name] = WireField(field.value) }
            records.append(ServerStateFile.StoredRecord(
                recordName: name, recordType: names[stored.type], recordChangeTag: ServerEngine.tagString(stored.tag),
                fields: fields, created: wireStamp(stored.created), modified: wireStamp(stored.modified), sequence: stored.sequence))
        }
        records.sort { $0.sequence < $1.sequence }
        let tombstones = zone.tombstones.map { name, tombstone in
            ServerStateFile.Tombstone(recordName: name, recordType: names[tombstone.type], sequence: tombstone.sequence)
        }.sorted { $0.sequence < $1.sequence }
        return ServerStateFile.Zone(
            zoneName: zone.zoneID.zoneName, ownerRecordName: zone.zoneID.ownerName, incarnation: Hex.string(zone.incarnation),
            lastSequence: zone.lastSequence, compactedThrough: zone.compactedThrough,
            clientChangeTokenData: zone.clientChangeTokenData?.base64EncodedString(),
            participants: zone.participants.isEmpty ? nil : zone.participants.sorted(), share: zone.share, records: records,
            tombstones: tombstones.isEmpty ? nil : tombstones, parents: zone.parents.isEmpty ? nil : zone.parents,
            recordShares: zone.recordShares.isEmpty ? nil : zone.recordShares,
            limitedParticipants: zone.limitedParticipants.isEmpty ? nil : zone.limitedParticipants.mapValues { $0.sorted() })
    }

    private func logFile(_ log: Log) -> ServerStateFile.DatabaseLog {
        ServerStateFile.DatabaseLog(
            incarnation: Hex.string(log.incarnation), lastSequence: log.lastSequence, compactedThrough: log.compactedThrough,
            entries: log.entries.map { zoneID, entry in
                ServerStateFile.LogEntry(zoneID: WireZoneID(zoneID), sequence: entry.sequence, removal: entry.removal?.rawValue)
            }.sorted { $0.sequence < $1.sequence })
    }

    private func databasesFile(_ dbs: Databases) -> ServerStateFile.UserDatabases {
        ServerStateFile.UserDatabases(
            user: dbs.user, privateZones: dbs.privateZones.keys.sorted().compactMap { dbs.privateZones[$0].map(zoneFile) },
            removedZones: dbs.removedZoneReasons.isEmpty ? nil : dbs.removedZoneReasons.mapValues(\.rawValue),
            privateLog: logFile(dbs.privateLog), sharedZones: dbs.sharedZones.isEmpty ? nil : dbs.sharedZones.sorted().map(WireZoneID.init),
            sharedLog: logFile(dbs.sharedLog))
    }
}
