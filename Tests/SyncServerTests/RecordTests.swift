import Foundation
import SyncCore
import SyncServer
import Testing

@Suite struct RecordTests {
    @Test func ifServerRecordUnchangedSavesOnlyWithTheCurrentChangeTag() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        let first = try f.save([f.record("n1", in: notes, ["title": "v1"])], in: notes, policy: .ifServerRecordUnchanged)[0]
        var edit = first
        edit["title"] = "v2"
        let second = try f.save([edit], in: notes, policy: .ifServerRecordUnchanged)[0]
        #expect(second["title"] == "v2")

        var stale = first
        stale["title"] = "stale"
        let results = try f.modify([.save(stale, policy: .ifServerRecordUnchanged)], in: notes)
        let error = cloudError(results[0])
        expect(error, .serverRecordChanged, mentioning: ["n1", "changed on the server"])
        #expect(error?.serverRecord == second, "the conflict carries the server's record")
        #expect(error?.recordName == "n1")
        #expect(try f.lookup("n1", in: notes)["title"] == "v2")
    }

    @Test func ifServerRecordUnchangedWithoutTagFailsWhenTheRecordExists() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        try f.save("n1", in: notes, ["title": "server"])
        let results = try f.modify([.save(f.record("n1", in: notes, ["title": "blind"]), policy: .ifServerRecordUnchanged)], in: notes)
        expect(cloudError(results[0]), .serverRecordChanged, mentioning: ["no change tag"])
    }

    @Test func changedKeysMergesGivenFieldsIntoTheServerRecordWithoutTagCheck() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        let first = try f.save("n1", in: notes, ["a": 1, "b": 2])
        try f.save("n1", in: notes, ["a": 10])
        var stale = first
        stale.fields = ["b": 20, "c": 30]
        let merged = try f.save([stale], in: notes, policy: .changedKeys)[0]
        #expect(merged.fields == ["a": 10, "b": 20, "c": 30])
        #expect(try f.lookup("n1", in: notes).fields == ["a": 10, "b": 20, "c": 30])
    }

    @Test func allKeysReplacesEveryFieldWithoutTagCheck() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        let first = try f.save("n1", in: notes, ["a": 1, "b": 2])
        try f.save("n1", in: notes, ["a": 10])
        var stale = first
        stale.fields = ["c": 30]
        let replaced = try f.save([stale], in: notes, policy: .allKeys)[0]
        #expect(replaced.fields == ["c": 30])
        #expect(try f.lookup("n1", in: notes).fields == ["c": 30])
    }

    @Test func creatingAnExistingRecordFailsWithAlreadyExists() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        let saved = try f.save("n1", in: notes, ["title": "first"])
        let results = try f.modify([RecordOperation(type: .create, record: f.record("n1", in: notes, ["title": "second"]))], in: notes)
        let error = cloudError(results[0])
        expect(error, .alreadyExists, mentioning: ["n1", "already exists"])
        #expect(error?.serverRecord == saved)
        #expect(try f.lookup("n1", in: notes)["title"] == "first")
    }

    @Test func deleteRemovesTheRecordAndDeletingItAgainIsUnknownItem() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        try f.save("n1", in: notes)
        let results = try f.modify([.delete(RecordID(recordName: "n1", zoneID: notes))], in: notes)
        #expect(try results[0].get() == .deleted(RecordID(recordName: "n1", zoneID: notes), recordType: "Note"))
        expect(cloudError { try f.lookup("n1", in: notes) }, .unknownItem, mentioning: ["n1"])
        let again = try f.modify([.delete(RecordID(recordName: "n1", zoneID: notes))], in: notes)
        expect(cloudError(again[0]), .unknownItem, mentioning: ["does not exist"])
    }

    @Test func deleteWithAStaleChangeTagFailsWithServerRecordChanged() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        let first = try f.save("n1", in: notes)
        let current = try f.save("n1", in: notes, ["x": 1])
        let stale = try f.modify([.delete(first.recordID, changeTag: first.recordChangeTag)], in: notes)
        #expect(cloudError(stale[0])?.serverRecord == current)
        #expect(try f.lookup("n1", in: notes) == current)
        let fresh = try f.modify([.delete(first.recordID, changeTag: current.recordChangeTag)], in: notes)
        _ = try fresh[0].get()
    }

    @Test func deleteOperationWithoutChangeTagDeletesWithoutCheck() throws {
        // The spec: `delete` checks the change tag *when one is given*.
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        try f.save("n1", in: notes)
        let results = try f.modify([RecordOperation(type: .delete, record: f.record("n1", in: notes))], in: notes)
        #expect(try results[0].get() == .deleted(RecordID(recordName: "n1", zoneID: notes), recordType: "Note"))
    }

    @Test func atomicRequestInACustomZoneIsAllOrNothing() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        try f.save("existing", in: notes, ["v": 1])
        let token = try f.currentZoneToken(notes)
        let results = try f.modify(
            [
                .save(f.record("new1", in: notes)),
                RecordOperation(type: .create, record: f.record("existing", in: notes)),
                .save(f.record("existing", in: notes, ["v": 2]).withName("new2"), policy: .allKeys),
                .delete(RecordID(recordName: "existing", zoneID: f.zone("Other"))),
            ],
            in: notes, clientChangeTokenData: Data([1]))
        #expect(results.map { cloudError($0)?.code } == [.batchRequestFailed, .alreadyExists, .batchRequestFailed, .invalidArguments])
        expect(cloudError(results[0]), .batchRequestFailed, mentioning: ["atomic"])
        #expect(cloudError(results[0])?.recordName == "new1")
        expect(cloudError { try f.lookup("new1", in: notes) }, .unknownItem)
        expect(cloudError { try f.lookup("new2", in: notes) }, .unknownItem)
        let after = try f.zoneChanges(notes, since: token)
        #expect(after.changes.isEmpty, "nothing was applied")
        #expect(after.clientChangeTokenData == nil, "not even the client change token")
    }

    @Test func nonAtomicRequestAppliesTheItemsThatSucceed() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        try f.save("existing", in: notes)
        let results = try f.modify(
            [
                .save(f.record("new1", in: notes)),
                RecordOperation(type: .create, record: f.record("existing", in: notes)),
                .save(f.record("new2", in: notes)),
            ],
            in: notes, atomic: false)
        #expect(results.map { cloudError(ifFailed: $0)?.code } == [nil, .alreadyExists, nil])
        #expect(try f.lookup("new1", in: notes).recordID.recordName == "new1")
        #expect(try f.lookup("new2", in: notes).recordID.recordName == "new2")
    }

    @Test func defaultZoneIsNeverAtomic() throws {
        let f = try Fixture()
        let home = RecordZoneID.defaultZone(ownerName: "alice")
        try f.save("existing", in: home)
        let results = try f.modify(
            [.save(f.record("new1", in: home)), RecordOperation(type: .create, record: f.record("existing", in: home))],
            in: home, atomic: true)
        #expect(results.map { cloudError(ifFailed: $0)?.code } == [nil, .alreadyExists])
    }

    @Test func moreThan400ItemsIsLimitExceededAndNothingIsApplied() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        let tooMany = (1...401).map { RecordOperation.save(f.record("r\($0)", in: notes)) }
        expect(cloudError { try f.modify(tooMany, in: notes, atomic: false) }, .limitExceeded, mentioning: ["401", "400", "Nothing was applied"])
        #expect(try f.zoneChanges(notes).changes.isEmpty)
        let justEnough = try f.modify(Array(tooMany.prefix(400)), in: notes)
        #expect(justEnough.allSatisfy { (try? $0.get()) != nil })
    }

    @Test func clientChangeTokenDataIsStoredPerZoneAndEchoedByChangesZone() throws {
        let f = try Fixture()
        let a = try f.createZone("A")
        let b = try f.createZone("B")
        _ = try f.modify([.save(f.record("a1", in: a))], in: a, clientChangeTokenData: Data("client-A-1".utf8))
        _ = try f.modify([.save(f.record("b1", in: b))], in: b, clientChangeTokenData: Data("client-B-1".utf8))
        _ = try f.modify([.save(f.record("a2", in: a))], in: a)

        let results = try f.engine.fetchRecordZoneChanges(
            caller: f.alice, database: f.privateDB, [ZoneChangesRequest(zoneID: a), ZoneChangesRequest(zoneID: b)])
        #expect(try results[0].get().clientChangeTokenData == Data("client-A-1".utf8), "kept when a later request sends none")
        #expect(try results[1].get().clientChangeTokenData == Data("client-B-1".utf8))

        _ = try f.modify([.save(f.record("a3", in: a))], in: a, clientChangeTokenData: Data("client-A-2".utf8))
        #expect(try f.zoneChanges(a).clientChangeTokenData == Data("client-A-2".utf8))
    }

    @Test func everySaveGetsANewChangeTag() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        var tags: [String] = []
        for i in 0..<5 {
            tags.append(try #require(try f.save("n1", in: notes, ["i": .int64(Int64(i))]).recordChangeTag))
            tags.append(try #require(try f.save("other\(i)", in: notes).recordChangeTag))
        }
        let unchanged = try f.save("n1", in: notes, ["i": 4])
        tags.append(try #require(unchanged.recordChangeTag))
        #expect(Set(tags).count == tags.count, "\(tags)")
        #expect(try f.lookup("n1", in: notes).recordChangeTag == unchanged.recordChangeTag)
    }

    @Test func badRecordNamesAreInvalidArguments() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        // CKRecord.ID's rules: 1 to 255 ASCII characters, no leading underscore.
        for name in ["_system", "café", "tab\tname", String(repeating: "x", count: 256)] {
            let results = try f.modify([.save(f.record(name, in: notes))], in: notes)
            expect(cloudError(results[0]), .invalidArguments, mentioning: ["record name"])
            #expect(cloudError(results[0])?.recordName == name, "errors carry recordName")
        }
        // No name: a save makes a new UUID name (Apple's default); a delete must name its record.
        let nameless = try f.modify([.save(f.record("", in: notes))], in: notes)[0].get()
        guard case .saved(let created) = nameless else { Issue.record("not saved: \(nameless)"); return }
        #expect(UUID(uuidString: created.recordID.recordName)?.uuidString == created.recordID.recordName)
        let unnamedDelete = try f.modify([.delete(RecordID(recordName: "", zoneID: notes))], in: notes)
        expect(cloudError(unnamedDelete[0]), .invalidArguments, mentioning: ["record name"])
        // '/' is allowed, and so are 255 characters.
        for name in ["a/b", "folder/note 1", String(repeating: "x", count: 255)] {
            _ = try f.modify([.save(f.record(name, in: notes))], in: notes)[0].get()
            #expect(try f.lookup(name, in: notes).recordID.recordName == name)
        }
        let typeless = try f.modify([.save(f.record("n1", in: notes, type: ""))], in: notes)
        expect(cloudError(typeless[0]), .invalidArguments, mentioning: ["record type"])
    }

    @Test func badFieldNamesAreInvalidArguments() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        for name in ["", "_private", "1st", "with-dash", "with space", "café"] {
            let results = try f.modify([.save(f.record("n1", in: notes, [name: 1]))], in: notes)
            expect(cloudError(results[0]), .invalidArguments, mentioning: ["not a valid field name"])
        }
        _ = try f.modify([.save(f.record("n1", in: notes, ["fine_Name2": 1]))], in: notes)[0].get()
    }

    @Test func fieldValuesTheWireCannotCarryAreInvalidArguments() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        let bad: [(FieldValue, String)] = [
            (.list(.string, ["ok", 5]), "STRING_LIST"),
            (.list(.int64, [.list(.int64, [1])]), "list"),
            (.double(.nan), "finite"),
            (.double(.infinity), "finite"),
            (.list(.double, [.double(-.infinity)]), "finite"),
            (.location(Location(latitude: .nan, longitude: 0)), "finite"),
        ]
        for (index, (value, words)) in bad.enumerated() {
            let results = try f.modify([.save(f.record("n\(index)", in: notes, ["v": value]), policy: .allKeys)], in: notes)
            expect(cloudError(results[0]), .invalidArguments, mentioning: ["'v'", words])
        }
        #expect(try f.zoneChanges(notes).changes.isEmpty)
    }

    @Test func recordCannotChangeItsType() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        try f.save("n1", in: notes)
        let results = try f.modify([.save(f.record("n1", in: notes, type: "Task"), policy: .allKeys)], in: notes)
        expect(cloudError(results[0]), .invalidArguments, mentioning: ["'Note'", "'Task'"])
    }

    @Test func createdAndModifiedStampsComeFromTheClockAndCaller() throws {
        let f = try Fixture()
        let notes = try f.createZone("Notes")
        let created = try f.save("n1", in: notes)
        f.clock.advance(by: 5_000)
        let modified = try f.save("n1", in: notes, ["x": 1])
        #expect(modified.created == RecordStamp(timestamp: VirtualClock.defaultStart, userRecordName: "alice", deviceID: "alice-phone"))
        #expect(modified.created == created.created)
        #expect(modified.modified == RecordStamp(timestamp: VirtualClock.defaultStart + 5_000, userRecordName: "alice", deviceID: "alice-phone"))
    }

    /// A save answers with the record's parent, and tells the commit's
    /// observers the record before the save (with the parent it had) and after
    /// (with the one it has now).
    @Test func aSaveAnswersWithTheParentAndCommitsTheOldOneAsBefore() throws {
        final class Commits { var all: [Commit] = [] }
        let f = try Fixture()
        let lists = try f.createZone("Lists")
        try f.save([f.record("groceries", in: lists), f.record("chores", in: lists)], in: lists)
        var milk = f.record("milk", in: lists)
        milk.parent = RecordReference(recordName: "groceries")
        #expect(try f.save([milk], in: lists)[0].parent?.recordName == "groceries")

        let commits = Commits()
        f.engine.commitObservers.append { commits.all.append($0) }
        milk.parent = RecordReference(recordName: "chores")
        let moved = try f.save([milk], in: lists)[0]
        #expect(moved.parent?.recordName == "chores")
        #expect(try f.lookup("milk", in: lists).parent?.recordName == "chores")
        let change = try #require(commits.all.last?.changes.first)
        #expect(change.before?.parent?.recordName == "groceries")
        #expect(change.after == moved)

        // A save that names no parent keeps the one the record has.
        let kept = try f.save([f.record("milk", in: lists, ["n": 1])], in: lists)[0]
        #expect(kept.parent?.recordName == "chores")
        #expect(commits.all.last?.changes.first?.before?.parent?.recordName == "chores")
    }
}

/// The error of a failed result, `nil` for a success.
func cloudError<T>(ifFailed result: Result<T, CloudError>) -> CloudError? {
    if case .failure(let error) = result { error } else { nil }
}

extension Record {
    func withName(_ name: String) -> Record {
        var copy = self
        copy.recordID.recordName = name
        return copy
    }
}
