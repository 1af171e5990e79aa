import SyncCore
import SyncSimulation
import SyncWorlds
import Testing
@testable import SyncInspector
import SyncInspectorWorlds

/// The snapshot builder on hand-built server readings: what the panes show
/// comes from the reading and the device alone, whatever answered the questions.
@Suite struct SnapshotBuilderTests {
    func notesSummary(recordCount: Int = 7, lastSequence: Int64? = 12, token: ServerChangeToken? = ServerChangeToken(rawValue: "server-now"))
        -> ServerZoneSummary {
        ServerZoneSummary(scope: .private, zoneID: notesZone, recordCount: recordCount, lastSequence: lastSequence, currentToken: token)
    }

    func notesEntry(_ items: [ZoneListItem]) throws -> ZoneEntry {
        try #require(items.compactMap(\.entry).first { $0.zoneID == notesZone && $0.scope == .private })
    }

    @Test func zonesShowHowTheDevicesTokenStandsAsTheReadingSays() async throws {
        let inspector = try await makeInspector()
        let iPhone = try inspector.device("iPhone")
        let deviceToken = try #require(iPhone.cachedZoneToken(for: notesZone))
        let serverToken = ServerChangeToken(rawValue: "server-now")
        var reading = ServerReading()
        reading.zones = [notesSummary()]
        let key = ServerReading.TokenKey(scope: .private, zoneID: notesZone, token: deviceToken)
        reading.pending[key] = 3
        reading.positions = [serverToken: 12, deviceToken: 9]

        let behind = try notesEntry(SnapshotBuilder.zones(of: iPhone, reading: reading))
        #expect(behind.state == .behind(3))
        #expect(behind.serverThrough == 12)
        #expect(behind.deviceThrough == 9)
        #expect(behind.serverToken == serverToken)
        #expect(behind.deviceToken == deviceToken)

        // Over HTTP tokens are opaque: no positions, only the server's latest change when it says.
        reading.positions = [:]
        let opaque = try notesEntry(SnapshotBuilder.zones(of: iPhone, reading: reading))
        #expect(opaque.serverThrough == 12)
        #expect(opaque.deviceThrough == nil)

        reading.pending = [:]
        reading.problems[key] = CloudError(.changeTokenExpired, "too old")
        #expect(try notesEntry(SnapshotBuilder.zones(of: iPhone, reading: reading)).state == .tokenExpired)
        reading.problems[key] = CloudError(.invalidArguments, "another history")
        #expect(try notesEntry(SnapshotBuilder.zones(of: iPhone, reading: reading)).state == .tokenRefused("another history"))

        // The public database is always listed, without change fetching.
        let items = SnapshotBuilder.zones(of: iPhone, reading: reading)
        #expect(items.compactMap(\.entry).contains { $0.scope == .public && $0.state == .noChangeFetching })
    }

    @Test func recordsMergeTheReadingsRecordsWithTheDevicesCopies() async throws {
        let inspector = try await makeInspector()
        let iPhone = try inspector.device("iPhone")
        let cached = iPhone.cachedRecords(in: notesZone)
        #expect(!cached.isEmpty)
        let onlyOnServer = Record(recordID: RecordID(recordName: "zz-only-on-server", zoneID: notesZone), recordType: "Note", fields: [:])
        var reading = ServerReading()
        reading.zones = [notesSummary(recordCount: cached.count + 1)]
        let entry = try notesEntry(SnapshotBuilder.zones(of: iPhone, reading: reading))
        let source = RecordRowsModel.Source(zone: entry.key, device: iPhone.name)
        let everything = ZoneRecordsAtPosition(records: cached + [onlyOnServer], position: entry.serverToken)
        reading.records = ServerReading.RecordRowsReading(source: source, answers: [.everything: .everything(everything)])
        var model = RecordRowsModel()
        var rows = RecordList()
        // The effect copies what the model will read of the device: for a rebuild, every record.
        let copy = SnapshotBuilder.deviceRecords(of: entry, device: iPhone, reading: reading, model: model)
        #expect(copy.all?.count == cached.count)
        SnapshotBuilder.records(&rows, of: entry, device: iPhone.name, copy: copy, reading: reading, model: &model)
        #expect(rows.rows.count == cached.count + 1)
        #expect(rows.rows.last?.name == "zz-only-on-server")
        #expect(rows.rows.last?.marker == .new)
        #expect(rows.rows.dropLast().allSatisfy { $0.marker == .same })

        // Records read for another zone are not this zone's: the rows wait for the next read.
        reading.records?.source.zone = ZoneKey(scope: .private, zoneID: RecordZoneID(zoneName: "Photos", ownerName: "alice"))
        var fresh = RecordRowsModel()
        var without = RecordList()
        let nothing = SnapshotBuilder.deviceRecords(of: entry, device: iPhone, reading: reading, model: fresh)
        #expect(nothing.all == nil && nothing.named.isEmpty, "rows that wait read nothing of the device")
        SnapshotBuilder.records(&without, of: entry, device: iPhone.name, copy: nothing, reading: reading, model: &fresh)
        #expect(without.rows.isEmpty)
        #expect(fresh.rebuilds == 0)
    }

    @Test func aRewindIsBuiltFromTheObserversAnswer() async throws {
        let inspector = try await makeInspector()
        let iPhone = try inspector.device("iPhone")
        let known = try #require(iPhone.cachedRecords(in: notesZone).first)
        let receipt = try #require(iPhone.tokenHistory.last { $0.zoneID == notesZone })
        let fresh = Record(recordID: RecordID(recordName: "fresh", zoneID: notesZone), recordType: "Note", fields: [:])
        let batch = ZoneChangesBatch(
            zoneID: notesZone,
            changes: [.changed(known), .changed(fresh), .deleted(RecordID(recordName: "gone", zoneID: notesZone), recordType: "Note")],
            serverChangeToken: ServerChangeToken(rawValue: "next"), moreComing: true)
        let rewind = SnapshotBuilder.rewind(
            ServerReading.RewindReading(receipt: receipt, meaning: "opaque token", result: .success(.zone(batch))), device: iPhone)
        #expect(rewind.changes == [
            .changed(known.recordID.recordName, type: known.recordType, isNew: false),
            .changed("fresh", type: "Note", isNew: true),
            .deleted("gone", type: "Note"),
        ])
        #expect(rewind.moreComing)
        #expect(rewind.meaning == "opaque token")
        #expect(rewind.error == nil)

        let refused = SnapshotBuilder.rewind(
            ServerReading.RewindReading(receipt: receipt, meaning: "m", result: .failure(CloudError(.changeTokenExpired, "expired"))),
            device: iPhone)
        #expect(refused.changes.isEmpty)
        #expect(refused.error?.code == .changeTokenExpired)
    }
}
