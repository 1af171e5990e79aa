import SyncCore
import Testing

@Suite struct RecordTests {
    static let id = RecordID(recordName: "note-1", zoneID: RecordZoneID(zoneName: "Notes", ownerName: "alice"))

    /// `parent` and `share` are kept out of line; each reads back what was
    /// set, and setting one leaves the other alone.
    @Test func parentAndShareReadBackWhatWasSet() {
        var record = Record(recordID: Self.id, recordType: "Note", parent: RecordReference(recordName: "folder"))
        #expect(record.parent?.recordName == "folder")
        #expect(record.share == nil)
        record.share = RecordReference(recordName: "share-1")
        #expect(record.parent?.recordName == "folder")
        #expect(record.share?.recordName == "share-1")
        record.parent = nil
        #expect(record.parent == nil)
        #expect(record.share?.recordName == "share-1")
    }

    /// A record whose links were set and then cleared is equal to, and hashes
    /// like, one that never had any.
    @Test func clearedLinksEqualNoLinks() {
        let plain = Record(recordID: Self.id, recordType: "Note")
        var cleared = Record(recordID: Self.id, recordType: "Note", parent: RecordReference(recordName: "folder"), share: RecordReference(recordName: "s"))
        #expect(cleared != plain)
        cleared.parent = nil
        cleared.share = nil
        #expect(cleared == plain)
        #expect(Set([cleared, plain]).count == 1)
    }
}
