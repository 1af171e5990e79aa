import Foundation
import SyncPostgres
import SyncTestSupport
import Testing

/// One throwaway PostgreSQL cluster for a whole suite, stopped (and its
/// folder removed) when the suite ends, whether its tests pass or fail.
struct WithPostgresCluster: SuiteTrait, TestScoping {
    @TaskLocal static var cluster: PostgresCluster?

    @concurrent
    func provideScope(for test: Test, testCase: Test.Case?, performing function: @concurrent @Sendable () async throws -> Void) async throws {
        try await PostgresCluster.withCluster { cluster in
            try await Self.$cluster.withValue(cluster) { try await function() }
        }
    }
}

/// The shared journal in PostgreSQL, on a real cluster: one total order
/// across nodes, tail notifications, checkpoints, delivery claims, and a
/// sentence for each way opening can fail. Under `CI=true` these never skip.
@Suite(
    .serialized, .enabled(if: PostgresCluster.isAvailable || PostgresCluster.isCI, Comment(rawValue: PostgresCluster.notInstalled)),
    WithPostgresCluster())
struct PostgresJournalStoreTests {
    var cluster: PostgresCluster {
        get throws {
            guard let cluster = WithPostgresCluster.cluster else { throw PostgresCluster.Failure("no cluster") }
            return cluster
        }
    }

    /// A new, migrated database; returns its address.
    func freshDatabase(migrated: Bool = true) async throws -> PostgresStoreURL {
        let cluster = try cluster
        let name = "t_\(UUID().uuidString.prefix(8).lowercased())"
        try await cluster.createDatabase(name)
        let url = try PostgresStoreURL(parsing: cluster.url(database: name), environment: [:])
        if migrated { try await PostgresJournalStore.migrate(url) }
        return url
    }

    /// Two stores on one fresh database, as two nodes would open it; the caller closes them.
    func twoNodes() async throws -> (PostgresStoreURL, PostgresJournalStore, PostgresJournalStore) {
        let url = try await freshDatabase()
        return (url, try await PostgresJournalStore.open(url), try await PostgresJournalStore.open(url))
    }

    func call(_ text: String) -> Data { Data(text.utf8) }

    /// Every row from the start, page by page.
    func allRows(_ store: PostgresJournalStore) async throws -> [JournalRow] {
        var rows: [JournalRow] = []
        while true {
            let page = try await store.rows(after: rows.last?.position ?? 0, limit: 37)
            if page.isEmpty { return rows }
            rows += page
        }
    }

    @Test func migrateCreatesTheSchemaOnceAndIsSafeToRepeat() async throws {
        let url = try await freshDatabase(migrated: false)
        #expect(try await PostgresJournalStore.migrate(url) == .created)
        #expect(try await PostgresJournalStore.migrate(url) == .alreadyCurrent)
        let store = try await PostgresJournalStore.open(url)
        defer { store.close() }
        #expect(try await store.meta()["schema_version"] == String(PostgresJournalStore.schemaVersion))
        #expect(try await store.tail() == 0)
        #expect(try await store.rows(after: 0).isEmpty)
        #expect(try await store.checkpoint() == nil)
        // Migrating again keeps what the journal holds.
        _ = try await store.append(time: 5, call: call("kept"))
        #expect(try await PostgresJournalStore.migrate(url) == .alreadyCurrent)
        #expect(try await store.rows(after: 0).map(\.call) == [call("kept")])
    }

    @Test func concurrentMigrationsFromSeveralNodesMakeOneSchema() async throws {
        let url = try await freshDatabase(migrated: false)
        let outcomes = try await withThrowingTaskGroup(of: PostgresJournalStore.MigrationOutcome.self) { group in
            for _ in 0..<3 { group.addTask { try await PostgresJournalStore.migrate(url) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == .created }.count == 1)
        #expect(outcomes.filter { $0 == .alreadyCurrent }.count == 2)
    }

    /// Four nodes, each appending from four connections at once, with clocks
    /// that disagree: one gap-free order, each caller told the position its
    /// call really got, every node reading the same rows, each row keeping the
    /// time asked for, and the times rows apply at never going back.
    @Test func concurrentAppendsFromSeveralNodesGetOneTotalOrder() async throws {
        let url = try await freshDatabase()
        let nodes = try await (0..<4).asyncMap { _ in try await PostgresJournalStore.open(url, maximumConnections: 4) }
        defer { for node in nodes { node.close() } }
        let perTask = 20
        let tasksPerNode = 4
        let appended = try await withThrowingTaskGroup(of: [(call: Data, requested: Int64, got: PostgresJournalStore.Appended)].self) { group in
            for (n, node) in nodes.enumerated() {
                for t in 0..<tasksPerNode {
                    group.addTask {
                        var mine: [(call: Data, requested: Int64, got: PostgresJournalStore.Appended)] = []
                        for i in 0..<perTask {
                            // Node clocks skewed by up to 300 ms against each other.
                            let requested = Int64(1_000_000 + i * 10 + n * 100 - t)
                            let text = Data("node\(n)-task\(t)-call\(i)".utf8)
                            if i % 5 == 4 {
                                // Group commit: two calls in one transaction, consecutive.
                                let extra = Data("node\(n)-task\(t)-call\(i)b".utf8)
                                let got = try await node.append([(time: requested, call: text), (time: requested, call: extra)])
                                #expect(got[1].position == got[0].position + 1)
                                mine.append((text, requested, got[0]))
                                mine.append((extra, requested, got[1]))
                            } else {
                                mine.append((text, requested, try await node.append(time: requested, call: text)))
                            }
                        }
                        // One connection's appends come back in increasing positions.
                        #expect(mine.map(\.got.position) == mine.map(\.got.position).sorted())
                        return mine
                    }
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        let expectedCount = nodes.count * tasksPerNode * (perTask + perTask / 5)
        #expect(appended.count == expectedCount)
        #expect(Set(appended.map(\.got.position)) == Set(1...Int64(expectedCount)), "positions are unique and without gaps")

        let rows = try await allRows(nodes[0])
        #expect(rows.map(\.position) == Array(1...Int64(expectedCount)))
        let byPosition = Dictionary(uniqueKeysWithValues: rows.map { ($0.position, $0) })
        for entry in appended {
            #expect(byPosition[entry.got.position]?.call == entry.call, "the position an append returned holds that call")
            #expect(byPosition[entry.got.position]?.time == entry.got.time)
            #expect(entry.got.time == entry.requested, "a row keeps the time its node asked for")
        }
        let applied = appliedTimes(rows)
        #expect(zip(applied, applied.dropFirst()).allSatisfy { $0 <= $1 }, "applied times never go backwards in position order")
        #expect(zip(rows, applied).allSatisfy { $0.time <= $1 }, "a call is never applied before the time it asked for")
        #expect(zip(rows, rows.dropFirst()).contains { $0.time > $1.time }, "skewed clocks made some rows timed before the row ahead")
        for node in nodes.dropFirst() {
            #expect(try await allRows(node) == rows, "every node reads the same order")
        }
        #expect(try await nodes[2].tail() == Int64(expectedCount))
    }

    @Test func anAppendOnOneNodeWakesAWatcherOnAnother() async throws {
        let (_, writer, watcher) = try await twoNodes()
        defer { writer.close(); watcher.close() }
        _ = try await writer.append(time: 1, call: call("before"))
        let watch = try await watcher.watchTail()
        let seen = try await withDeadline(seconds: 60) { () -> [Int64]? in
            var iterator = watch.makeAsyncIterator()
            // The first element is the tail as it was when LISTEN was in place.
            var seen = [try await iterator.next() ?? -1]
            let appended = try await writer.append(time: 2, call: Data("after".utf8))
            while let position = try await iterator.next() {
                if position >= appended.position {
                    seen.append(position)
                    break
                }
            }
            // A group commit wakes with its last position.
            let group = try await writer.append([(time: 3, call: Data("g1".utf8)), (time: 3, call: Data("g2".utf8))])
            while let position = try await iterator.next() {
                if position >= group[1].position {
                    seen.append(position)
                    break
                }
            }
            return seen
        }
        #expect(seen == [1, 2, 4])
    }

    @Test func aCheckpointRoundTripsAndOnlyNewerOnesReplaceIt() async throws {
        let url = try await freshDatabase()
        let store = try await PostgresJournalStore.open(url)
        defer { store.close() }
        for i in 1...3 { _ = try await store.append(time: Int64(i * 100), call: call("c\(i)")) }
        let state = Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 * 7) })
        let checkpoint = StoredCheckpoint(throughPosition: 2, time: 200, format: 3, state: state)
        #expect(try await store.storeCheckpoint(checkpoint))
        #expect(try await store.checkpoint() == checkpoint)
        // An older one (a slow node) does not replace it.
        #expect(try await !store.storeCheckpoint(StoredCheckpoint(throughPosition: 1, time: 100, format: 3, state: Data("old".utf8))))
        #expect(try await store.checkpoint() == checkpoint)
        // One past the journal's end is refused.
        await #expect(throws: PostgresStoreError.self) {
            try await store.storeCheckpoint(StoredCheckpoint(throughPosition: 9, time: 900, format: 3, state: state))
        }
        // Folding never goes past the checkpoint.
        #expect(try await store.foldRows(through: 3) == 2)
        #expect(try await store.rows(after: 2).map(\.call) == [call("c3")])
        do {
            _ = try await store.rows(after: 0)
            Issue.record("folded rows were handed out")
        } catch let error as PostgresStoreError {
            #expect(error.kind == .historyFolded)
            #expect(error.description.contains("rows up to 2 were folded into the checkpoint"))
        }
        // Appends go on after the fold; a node reading on from the checkpoint's time
        // applies row 3 at 300 and row 4 (timed 50) at 300 too.
        #expect(try await store.append(time: 50, call: call("c4")) == .init(position: 4, time: 50))
        var applied = checkpoint.time
        let times = try await store.rows(after: checkpoint.throughPosition).map { row in
            applied = row.appliedTime(after: applied)
            return applied
        }
        #expect(times == [300, 300])
    }

    @Test func aChangedRowOrCheckpointIsNeverHandedOut() async throws {
        let url = try await freshDatabase()
        let store = try await PostgresJournalStore.open(url)
        defer { store.close() }
        for i in 1...3 { _ = try await store.append(time: Int64(i), call: call("c\(i)")) }
        try await store.storeCheckpoint(StoredCheckpoint(throughPosition: 3, time: 3, format: 1, state: Data("state".utf8)))
        let cluster = try cluster
        try await cluster.psql("UPDATE syncscope.journal SET call = 'cX'::bytea WHERE position = 2", database: url.database)
        try await cluster.psql("UPDATE syncscope.checkpoint SET state = 'State'::bytea", database: url.database)
        do {
            _ = try await store.rows(after: 0)
            Issue.record("a changed row was handed out")
        } catch let error as PostgresStoreError {
            #expect(error.kind == .damaged)
            #expect(error.description.contains("row at position 2"))
        }
        #expect(try await store.rows(after: 2).count == 1)
        // A row deleted by hand leaves a gap, which is never papered over.
        try await cluster.psql("DELETE FROM syncscope.journal WHERE position = 2", database: url.database)
        do {
            _ = try await store.rows(after: 1)
            Issue.record("a gap in the journal was handed out")
        } catch let error as PostgresStoreError {
            #expect(error.kind == .damaged)
            #expect(error.description.contains("has no row at position 2 but has one at 3"), "\(error)")
        }
        do {
            _ = try await store.checkpoint()
            Issue.record("a changed checkpoint was handed out")
        } catch let error as PostgresStoreError {
            #expect(error.kind == .damaged)
            #expect(error.description.contains("checkpoint"))
        }
    }

    @Test func nodesStartingAtOnceAgreeOnTheSettings() async throws {
        let url = try await freshDatabase()
        let nodes = try await (0..<3).asyncMap { _ in try await PostgresJournalStore.open(url) }
        defer { for node in nodes { node.close() } }
        let seen = try await withThrowingTaskGroup(of: [String: String].self) { group in
            for (n, node) in nodes.enumerated() {
                group.addTask { try await node.insertMetaIfAbsent(["seed": "seed-of-node-\(n)", "retention": "none"]) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(seen.compactMap { $0["seed"] }).count == 1)
        try await nodes[0].setMeta(["retention": "100"])
        #expect(try await nodes[1].meta()["retention"] == "100")
    }

    /// A device's notifications go to one poll at a time, whichever node it reaches.
    @Test func aNotificationIsHandedToOnePollAtATime() async throws {
        let (_, a, b) = try await twoNodes()
        defer { a.close(); b.close() }
        let ids = (1...40).map { String(format: "n%02d", $0) }
        // Two polls of one device, on two nodes, at once.
        async let onA = a.claimDeliveries(device: "d1", notificationIDs: ids, claimant: "A/1", now: 1000, leaseMilliseconds: 30_000)
        async let onB = b.claimDeliveries(device: "d1", notificationIDs: ids.reversed(), claimant: "B/1", now: 1000, leaseMilliseconds: 30_000)
        let (takenA, takenB) = try await (onA, onB)
        #expect(Set(takenA).isDisjoint(with: takenB))
        #expect(Set(takenA).union(takenB) == Set(ids))
        // Another device's claims are its own.
        #expect(try await a.claimDeliveries(device: "d2", notificationIDs: ["n01"], claimant: "A/2", now: 1000, leaseMilliseconds: 30_000) == ["n01"])

        // A wrote its answer; B's client went: B's notifications are free again.
        try await a.finishDeliveries(device: "d1", notificationIDs: takenA, claimant: "A/1", written: true)
        try await b.finishDeliveries(device: "d1", notificationIDs: takenB, claimant: "B/1", written: false)
        #expect(try await b.writtenDeliveries(device: "d1") == takenA.sorted())
        let retaken = try await b.claimDeliveries(device: "d1", notificationIDs: takenB, claimant: "B/2", now: 2000, leaseMilliseconds: 30_000)
        #expect(retaken == takenB)

        // A node dies holding claims (kill -9): they lapse with the lease.
        #expect(try await a.claimDeliveries(device: "d1", notificationIDs: takenB, claimant: "A/3", now: 2000, leaseMilliseconds: 30_000).isEmpty)
        #expect(try await a.claimDeliveries(device: "d1", notificationIDs: takenB, claimant: "A/3", now: 40_000, leaseMilliseconds: 30_000) == takenB)

        // The next poll acknowledges what was written, then forgets it.
        let written = try await b.writtenDeliveries(device: "d1")
        try await b.dropDeliveries(device: "d1", notificationIDs: written)
        #expect(try await a.writtenDeliveries(device: "d1").isEmpty)
    }

    // MARK: Sentences for each way opening fails

    @Test func anUnreachableServerIsNamed() async throws {
        let port = try PostgresCluster.freePort()
        let url = try PostgresStoreURL(parsing: "postgres://syncscope:x@127.0.0.1:\(port)/db?sslmode=disable", environment: [:])
        let attempts: [() async throws -> Void] = [{ _ = try await PostgresJournalStore.open(url) }, { _ = try await PostgresJournalStore.migrate(url) }]
        for attempt in attempts {
            do {
                try await attempt()
                Issue.record("connected to a port nothing listens on")
            } catch let error as PostgresStoreError {
                #expect(error.kind == .unreachable)
                #expect(error.description.hasPrefix("Cannot reach PostgreSQL at 127.0.0.1:\(port) (connection refused)"), "\(error)")
                #expect(error.description.contains("Check HOST and PORT"))
            }
        }
    }

    @Test func wrongCredentialsAreNamed() async throws {
        let url = try await freshDatabase()
        let cluster = try cluster
        for address in [cluster.url(database: url.database, password: "wrong"), cluster.url(database: url.database, user: "nobody", password: "x")] {
            let wrong = try PostgresStoreURL(parsing: address, environment: [:])
            do {
                _ = try await PostgresJournalStore.open(wrong)
                Issue.record("opened with wrong credentials")
            } catch let error as PostgresStoreError {
                #expect(error.kind == .credentialsRejected)
                #expect(error.description.contains("refused the user '\(wrong.user)'"), "\(error)")
                #expect(error.description.contains("the password is wrong or the user does not exist"))
                #expect(!error.description.contains("wrong@"), "the password is not repeated")
            }
        }
    }

    @Test func aMissingDatabaseOrSchemaIsNamed() async throws {
        let cluster = try cluster
        let missing = try PostgresStoreURL(parsing: cluster.url(database: "nosuchdb"), environment: [:])
        do {
            _ = try await PostgresJournalStore.open(missing)
            Issue.record("opened a database that does not exist")
        } catch let error as PostgresStoreError {
            #expect(error.kind == .noSuchDatabase)
            #expect(error.description.contains("has no database named 'nosuchdb'"), "\(error)")
        }
        let empty = try await freshDatabase(migrated: false)
        do {
            _ = try await PostgresJournalStore.open(empty)
            Issue.record("opened a database without the schema")
        } catch let error as PostgresStoreError {
            #expect(error.kind == .notMigrated)
            #expect(error.description.contains("holds no SyncScope schema: prepare it once with syncscope serve --store"), "\(error)")
            #expect(error.description.contains("--migrate"))
        }
    }

    @Test func aSchemaFromAnotherVersionIsNamed() async throws {
        let url = try await freshDatabase()
        let cluster = try cluster
        try await cluster.psql("UPDATE syncscope.meta SET value = '999' WHERE key = 'schema_version'", database: url.database)
        let attempts: [() async throws -> Void] = [{ _ = try await PostgresJournalStore.open(url) }, { _ = try await PostgresJournalStore.migrate(url) }]
        for attempt in attempts {
            do {
                try await attempt()
                Issue.record("used a schema of another version")
            } catch let error as PostgresStoreError {
                #expect(error.kind == .schemaVersionMismatch)
                #expect(
                    error.description.contains(
                        "holds a SyncScope schema of version 999, newer than this syncscope's (\(PostgresJournalStore.schemaVersion))"),
                    "\(error)")
            }
        }
        try await cluster.psql("UPDATE syncscope.meta SET value = '0' WHERE key = 'schema_version'", database: url.database)
        do {
            _ = try await PostgresJournalStore.open(url)
            Issue.record("used a schema of another version")
        } catch let error as PostgresStoreError {
            #expect(error.kind == .schemaVersionMismatch)
            #expect(error.description.contains("version 0, older than this syncscope's"), "\(error)")
        }
    }

    @Test func aVersion1SchemaIsNamedByOpenAndUpgradedByMigrate() async throws {
        let url = try await freshDatabase()
        let cluster = try cluster
        let old = try await PostgresJournalStore.open(url)
        _ = try await old.append(time: 5, call: call("kept"))
        old.close()
        try await cluster.psql(
            "DROP TABLE syncscope.open_poll; UPDATE syncscope.meta SET value = '1' WHERE key = 'schema_version'", database: url.database)
        do {
            _ = try await PostgresJournalStore.open(url)
            Issue.record("opened a version 1 schema")
        } catch let error as PostgresStoreError {
            #expect(error.kind == .notMigrated)
            #expect(error.description.contains("schema version 1, which this syncscope (version 2) upgrades in place"), "\(error)")
            #expect(error.description.contains("--migrate"))
        }
        #expect(try await PostgresJournalStore.migrate(url) == .upgraded(from: 1))
        #expect(try await PostgresJournalStore.migrate(url) == .alreadyCurrent)
        let store = try await PostgresJournalStore.open(url)
        defer { store.close() }
        #expect(try await store.rows(after: 0).map(\.call) == [call("kept")])
        try await store.openPoll(device: "d", poll: "p", until: 100)
        #expect(try await store.livePollsUntil(device: "d", now: 50) == 100)
    }

    @Test func pollLeasesFromEveryNodeTellWhetherADeviceIsPolling() async throws {
        let (url, a, b) = try await twoNodes()
        defer { a.close(); b.close() }
        #expect(try await b.livePollsUntil(device: "d", now: 0) == nil)
        // A poll open on node a, until its deadline and grace period (1,000).
        try await a.openPoll(device: "d", poll: "a/1", until: 1000)
        #expect(try await b.livePollsUntil(device: "d", now: 10) == 1000)
        #expect(try await b.livePollsUntil(device: "other", now: 10) == nil)
        // A second poll on node b; the one on a ends early (its grace period runs to 300).
        try await b.openPoll(device: "d", poll: "b/1", until: 2000)
        try await a.endPoll(device: "d", poll: "a/1", until: 300)
        #expect(try await a.livePollsUntil(device: "d", now: 100) == 2000)
        try await b.endPoll(device: "d", poll: "b/1", until: 400)
        #expect(try await a.livePollsUntil(device: "d", now: 350) == 400)
        // Every lease ran out (a node killed with a poll open included): none live, and they are gone.
        #expect(try await a.livePollsUntil(device: "d", now: 400) == nil)
        let left = try await cluster.psql("SELECT count(*) FROM syncscope.open_poll", database: url.database)
        #expect(left.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
    }

    /// A node whose clock runs behind appends in one statement, never sent
    /// again: its rows keep the times it asked for and apply at the time the
    /// row before them applied at, on every node that reads the journal.
    @Test func aNodeWhoseClockRunsBehindAppendsInOneStatementAndItsRowsApplyAtThePreviousRowsTime() async throws {
        let (url, a, b) = try await twoNodes()
        defer { a.close(); b.close() }
        _ = try await a.append(time: 1000, call: call("a"))
        #expect(try await b.append(time: 500, call: call("b1")) == PostgresJournalStore.Appended(position: 2, time: 500))
        let group = try await b.append([(time: 600, call: call("b2")), (time: 1200, call: call("b3")), (time: 900, call: call("b4"))])
        #expect(group == [.init(position: 3, time: 600), .init(position: 4, time: 1200), .init(position: 5, time: 900)])
        #expect(b.counters.commits.load(ordering: .relaxed) == 2 && b.counters.appended.load(ordering: .relaxed) == 4)
        #expect(b.counters.summary.hasPrefix("4 calls appended in 2 one-statement commits"), "\(b.counters.summary)")
        let rows = try await allRows(a)
        #expect(rows.map(\.time) == [1000, 500, 600, 1200, 900], "each row keeps the time asked for")
        #expect(appliedTimes(rows) == [1000, 1000, 1000, 1200, 1200], "each applies at the later of its time and the row before's")
        #expect(try await allRows(b) == rows)
        // The counter row keeps the time the last row applies at.
        let tailTime = try await cluster.psql("SELECT time FROM syncscope.tail", database: url.database)
        #expect(tailTime.trimmingCharacters(in: .whitespacesAndNewlines) == "1200")
    }
}

/// The times rows apply at, from the start of the journal.
func appliedTimes(_ rows: [JournalRow]) -> [Int64] {
    var previous: Int64 = 0
    return rows.map { row in
        previous = row.appliedTime(after: previous)
        return previous
    }
}

/// Runs `body`, failing the test when it has not finished within `seconds`
/// (a limit for a stuck wait, not a pause: `body` returns as soon as it can).
func withDeadline<T: Sendable>(seconds: Double, _ body: @escaping @Sendable () async throws -> T?) async throws -> T? {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            throw PostgresCluster.Failure("nothing arrived within \(seconds) s")
        }
        defer { group.cancelAll() }
        return try await group.next() ?? nil
    }
}

extension Sequence where Element: Sendable {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}
