import SyncCore
import SyncServer
import SyncSimulation

/// The world `syncscope` opens on: two users and three devices.
///
/// - alice has an iPhone and a Mac; bob has an iPad.
/// - alice's zones `Notes` (shared with bob) and `Photos`; bob's zone `Journal`;
///   two announcements in the public database.
/// - Every user has a database subscription in the private and in the shared
///   database; alice also has a query subscription for notes whose title
///   begins with "Call".
/// - A writer on all three devices changes a note every few seconds (the
///   first change comes within a second), so the screen is alive at once.
///
/// Built in Swift until the scenario runner can load `Assets/demo/demo.yaml`.
public enum DemoWorld {
    public static let notes = RecordZoneID(zoneName: "Notes", ownerName: "alice")
    public static let photos = RecordZoneID(zoneName: "Photos", ownerName: "alice")
    public static let journal = RecordZoneID(zoneName: "Journal", ownerName: "bob")

    /// Builds the world, lets every device catch up, and attaches the writer.
    ///
    /// - Parameters:
    ///   - seed: the same seed gives the same world and the same writer, byte for byte.
    ///   - writerRunning: whether the writer starts running (it is attached either way).
    ///   - writerInterval: virtual milliseconds between the writer's changes.
    public static func make(
        seed: UInt64 = 1, writerRunning: Bool = true, writerInterval: Milliseconds = 3_000
    ) async throws -> Simulation {
        let simulation = try Simulation(setup: SimulationSetup(
            seed: seed, users: ["alice", "bob"],
            devices: [.init(name: "iPhone", user: "alice"), .init(name: "Mac", user: "alice"), .init(name: "iPad", user: "bob")]))
        guard let iPhone = simulation.device(named: "iPhone"), let mac = simulation.device(named: "Mac"),
              let iPad = simulation.device(named: "iPad")
        else {
            throw CloudError(.internalError, "The demo world lost one of its devices.")
        }
        simulation.note("demo: alice's iPhone and Mac, bob's iPad")

        for device in [iPhone, iPad] {
            try check(await simulation.subscribe(
                .database(DatabaseSubscription(subscriptionID: "private-changes")), in: .private, on: device))
            try check(await simulation.subscribe(
                .database(DatabaseSubscription(subscriptionID: "shared-changes")), in: .shared, on: device))
        }
        try check(await simulation.subscribe(
            .query(QuerySubscription(
                subscriptionID: "call-notes", recordType: "Note",
                predicate: QueryPredicate([QueryFilter("title", .beginsWith, .string("Call"))]),
                options: [.firesOnRecordCreation, .firesOnRecordUpdate, .firesOnRecordDeletion],
                notificationInfo: NotificationInfo(alertBody: "A call note changed", desiredKeys: ["title"]))),
            in: .private, on: mac))

        try check(await simulation.createZone("Notes", on: iPhone))
        try check(await simulation.createZone("Photos", on: iPhone))
        try check(await simulation.createZone("Journal", on: iPad))
        try check(await simulation.shareZone("Notes", with: ["bob"], on: iPhone))

        let notes: [(String, String, String)] = [
            ("note-groceries", "Groceries", "milk, eggs, coffee"),
            ("note-trip", "Trip ideas", "Lisbon, Porto, Faro"),
            ("note-call", "Call Bob", "about the trip"),
            ("note-books", "Books", "Dune; Middlemarch"),
        ]
        for (name, title, body) in notes {
            try check(await simulation.save(
                Record(recordID: RecordID(recordName: name, zoneID: Self.notes), recordType: "Note",
                       fields: ["title": .string(title), "body": .string(body)]),
                on: iPhone))
        }
        let start = simulation.clock.now()
        for (index, caption) in ["Beach at sunset", "Tram 28"].enumerated() {
            try check(await simulation.save(
                Record(recordID: RecordID(recordName: "photo-\(index + 1)", zoneID: photos), recordType: "Photo",
                       fields: ["caption": .string(caption), "takenAt": .timestamp(start - 86_400_000 * Int64(index + 1)),
                                "rating": .int64(Int64(5 - index))]),
                on: mac))
        }
        try check(await simulation.save(
            Record(recordID: RecordID(recordName: "entry-1", zoneID: journal), recordType: "Entry",
                   fields: ["text": .string("Alice shared her notes with me.")]),
            on: iPad))

        let publicZone = RecordZoneID.defaultZone(ownerName: RecordZoneID.publicOwnerName)
        try check(await simulation.perform("save two announcements in the public database", on: iPhone, sending: false) { device in
            let operations = [("welcome", "Welcome to SyncScope"), ("tip", "Press ? to see every key")].map { name, text in
                RecordOperation.save(
                    Record(recordID: RecordID(recordName: name, zoneID: publicZone), recordType: "Announcement",
                           fields: ["text": .string(text)]),
                    policy: .allKeys)
            }
            for result in try await device.service.modifyRecords(in: .public, zoneID: publicZone, operations: operations) {
                if case .failure(let error) = result { throw error }
            }
        })

        await simulation.settle()
        for device in simulation.devices where device.engine.fetchRuns.isEmpty {
            await simulation.fetch(on: device)
        }
        await simulation.settle()

        let writer = DemoWriter(
            seed: seed, interval: writerInterval, writers: ["iPhone", "Mac", "iPad"],
            zones: ["iPhone": Self.notes, "Mac": Self.notes, "iPad": Self.notes], running: writerRunning)
        // The first change comes within a second, so the screen moves at once.
        writer.nextActionTime = simulation.clock.now() + min(writerInterval, 800)
        simulation.writer = writer
        simulation.note("demo ready: the writer changes a note every \(Format.seconds(writerInterval))")
        return simulation
    }

    private static func check(_ outcome: ActionOutcome) throws {
        if let error = outcome.error { throw error }
    }
}
