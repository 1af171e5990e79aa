import SyncCore
import SyncServer

/// The sync story told step by step on a virtual clock: what each device
/// does, what the server answers, and every token it issues.
struct HeadlessDemo {
    var seed: UInt64
    var resultsLimit: Int

    func run(printer: @escaping (String) -> Void) async throws {
        let clock = VirtualClock()
        let server = SimulatedServer(configuration: ServerConfiguration(seed: seed), clock: clock)
        let iPhone = try server.connect(user: "alice", deviceID: "alice-iPhone")
        let mac = try server.connect(user: "alice", deviceID: "alice-Mac")
        let notes = RecordZoneID(zoneName: "Notes", ownerName: "alice")
        var narrator = Narrator(clock: clock, server: server, print: printer)

        narrator.title("SyncScope — change-token sync, step by step")
        narrator.say("Alice has two devices, an iPhone and a Mac, signed in to the same iCloud account.")
        narrator.say("Every fetch hands the device a server change token; the device caches it and passes it back next time.")
        narrator.blank()

        // 1. The iPhone creates a zone and saves notes.
        narrator.step("iPhone creates zone Notes in the private database")
        _ = try await iPhone.modifyRecordZones(in: .private, saving: [notes], deleting: [])
        clock.advance(by: 250)
        let titles = ["Groceries", "Trip ideas", "Book list", "Passwords? no!", "Meeting notes"]
        let saves = titles.enumerated().map { i, title in
            RecordOperation.save(Record(
                recordID: RecordID(recordName: "note-\(i + 1)", zoneID: notes), recordType: "Note",
                fields: ["title": .string(title), "body": .string("…")]))
        }
        narrator.step("iPhone saves \(saves.count) notes in one request (one commit)")
        let saved = try await iPhone.modifyRecords(in: .private, zoneID: notes, operations: saves)
        for result in saved {
            if case .success(.saved(let record)) = result {
                narrator.detail("saved \(record.recordID.recordName) \"\(record["title"].map(Self.plain) ?? "")\" change tag \(record.recordChangeTag ?? "?")")
            }
        }
        clock.advance(by: 1_000)

        // 2. The Mac's first launch: nil tokens.
        narrator.blank()
        narrator.step("Mac launches for the first time: database changes with NO token (nil = everything)")
        var macDatabaseToken: ServerChangeToken?
        let firstDatabase = try await mac.fetchDatabaseChanges(in: .private, since: nil, resultsLimit: nil)
        narrator.databaseBatch(firstDatabase)
        macDatabaseToken = firstDatabase.serverChangeToken

        let batching = resultsLimit < saves.count
            ? "the server answers in batches"
            : "all \(saves.count) notes fit in one batch (try --results-limit 2 to see batches)"
        narrator.step("Mac fetches zone Notes with NO token, resultsLimit \(resultsLimit): \(batching)")
        var macZoneToken: ServerChangeToken?
        macZoneToken = try await narrator.fetchAll(mac, zone: notes, from: nil, resultsLimit: resultsLimit)
        if resultsLimit < saves.count {
            narrator.say("The Mac cached each batch's token as it arrived; a crash between batches would resume from the last one.")
        }
        clock.advance(by: 5_000)

        // 3. Changes on the iPhone.
        narrator.blank()
        let note2 = RecordID(recordName: "note-2", zoneID: notes)
        narrator.step("iPhone edits note-2 three times and deletes note-4")
        for edit in ["Trip ideas: Lisbon", "Trip ideas: Lisbon, Porto", "Trip ideas: Lisbon, Porto, Faro"] {
            guard case .success(var current) = try await iPhone.lookupRecords(in: .private, zoneID: notes, recordNames: ["note-2"], desiredKeys: nil)[0] else { break }
            current["title"] = .string(edit)
            _ = try await iPhone.modifyRecords(in: .private, zoneID: notes, operations: [.save(current)])
            narrator.detail("note-2 ← \"\(edit)\"")
            clock.advance(by: 400)
        }
        _ = try await iPhone.modifyRecords(in: .private, zoneID: notes, operations: [.delete(RecordID(recordName: "note-4", zoneID: notes))])
        narrator.detail("note-4 deleted")
        clock.advance(by: 2_000)

        // 4. Incremental fetch.
        narrator.blank()
        narrator.step("Mac fetches database changes with its cached database token")
        let secondDatabase = try await mac.fetchDatabaseChanges(in: .private, since: macDatabaseToken, resultsLimit: nil)
        narrator.databaseBatch(secondDatabase)
        macDatabaseToken = secondDatabase.serverChangeToken
        narrator.step("Mac fetches zone Notes with its cached zone token: only what changed since")
        macZoneToken = try await narrator.fetchAll(mac, zone: note2.zoneID, from: macZoneToken, resultsLimit: nil)
        narrator.say("note-2 changed three times but comes back once, in its latest state; note-4 comes back as an ID and a record type.")

        narrator.blank()
        narrator.step("Mac fetches again: nothing changed, so no records and the same token")
        _ = try await narrator.fetchAll(mac, zone: notes, from: macZoneToken, resultsLimit: nil)

        // 5. Tokens are not interchangeable.
        narrator.blank()
        narrator.step("Mac mistakenly passes its ZONE token to changes/database")
        do {
            _ = try await mac.fetchDatabaseChanges(in: .private, since: macZoneToken, resultsLimit: nil)
            narrator.detail("(unexpectedly accepted)")
        } catch let error as CloudError {
            narrator.detail("✗ \(error.serverErrorCode): \(error.reason)")
        }
        narrator.blank()
        narrator.say("That is the whole loop: fetch with the cached token, apply, cache the new token.")
        narrator.say("Try `syncscope-bench` (installed beside syncscope; measure a release build) to see why this stays cheap however long the history grows.")
    }

    static func plain(_ value: FieldValue) -> String {
        if case .string(let s) = value { return s }
        return value.displayString
    }
}
