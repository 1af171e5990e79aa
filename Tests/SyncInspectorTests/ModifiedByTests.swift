import SyncCore
import Testing
@testable import SyncInspector

/// The records pane's "modified by" column, and the filter that finds what it shows.
@Suite struct ModifiedByTests {
    static let zone = RecordZoneID(zoneName: "Notes", ownerName: "alice")

    static func row(modifiedBy user: String, device: String?) -> RecordRow {
        var record = Record(recordID: RecordID(recordName: "note-1", zoneID: zone), recordType: "Note", fields: ["title": .string("Groceries")])
        record.modified = RecordStamp(timestamp: 1, userRecordName: user, deviceID: device)
        return RecordRow(name: "note-1", server: record, device: nil, marker: .same, hasPendingChange: false)
    }

    static func device(_ name: String, user: String, id: String) -> DeviceSummary {
        DeviceSummary(name: name, user: user, deviceID: id, isOnline: true, autoFetchOnPush: true, pendingChanges: 0, fetchRuns: 0)
    }

    /// `/bob` finds the records the column shows as bob-iPad's.
    @Test func theFilterFindsWhoModifiedARecord() {
        let row = Self.row(modifiedBy: "bob", device: "bob-iPad")
        #expect(RecordRow.modifiedBy(row.server) == "bob-iPad")
        #expect(RecordList.keeps(row, needle: "bob", mode: .both))
        #expect(RecordList.keeps(row, needle: "ipad", mode: .both))
        #expect(!RecordList.keeps(row, needle: "carol", mode: .both))
        // The title still matches, as before.
        #expect(RecordList.keeps(row, needle: "grocer", mode: .both))
    }

    /// A device on a real server has a random ID: the column names the
    /// device when the world knows it, and never shows the hex.
    @Test func aRandomDeviceIDShowsAsItsDevice() {
        let id = "58e0e51159ad4c0f9a3e2b7d6c1f0a99"
        let row = Self.row(modifiedBy: "alice", device: id)
        #expect(RecordRow.modifiedBy(row.server, devices: [Self.device("Mac", user: "alice", id: id)]) == "alice-Mac")
        let unknown = RecordRow.modifiedBy(row.server, devices: [Self.device("Mac", user: "alice", id: "another")])
        #expect(unknown == "alice, another device")
        #expect(!unknown.contains("58e0e5"))
        // A simulated device's readable ID shows as it is.
        #expect(RecordRow.modifiedBy(Self.row(modifiedBy: "bob", device: "bob-iPad").server, devices: []) == "bob-iPad")
    }
}
