import Foundation
import Synchronization
import SyncTestSupport
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One throwaway PostgreSQL cluster for a whole suite, stopped (and its
/// folder removed) when the suite ends, whether its tests pass or fail.
struct WithSharedPostgres: SuiteTrait, TestScoping {
    @TaskLocal static var cluster: PostgresCluster?

    @concurrent
    func provideScope(for test: Test, testCase: Test.Case?, performing function: @concurrent @Sendable () async throws -> Void) async throws {
        try await PostgresCluster.withCluster { cluster in
            try await Self.$cluster.withValue(cluster) { try await function() }
        }
    }

    /// A new, empty database on the suite's cluster; returns its address.
    static func freshDatabase() async throws -> String {
        guard let cluster else { throw TestFailure("no PostgreSQL cluster") }
        let name = "n_\(UUID().uuidString.prefix(8).lowercased())"
        try await cluster.createDatabase(name)
        return cluster.url(database: name)
    }
}

/// Several `syncscope serve --store postgres://…` nodes on one database, as
/// separate processes: any node answers any request, tokens work everywhere,
/// long-polls hear of writes on other nodes, `kill -9` of a node loses no
/// acknowledged write, a late node catches up. Under `CI=true` these never skip.
@Suite(
    .serialized, .enabled(if: PostgresCluster.isAvailable || PostgresCluster.isCI, Comment(rawValue: PostgresCluster.notInstalled)),
    WithSharedPostgres())
struct PostgresNodesTests {
    /// `count` nodes on a new database; the first prepares it (`--migrate`).
    func nodes(_ count: Int, arguments: [String] = []) async throws -> [ServerProcess] {
        let store = try await WithSharedPostgres.freshDatabase()
        var nodes = [try await ServerProcess.start(store: store, arguments: ["--migrate"] + arguments)]
        for _ in 1..<max(1, count) { nodes.append(try await ServerProcess.start(store: store, arguments: arguments)) }
        return nodes
    }

    func stopAll(_ nodes: [ServerProcess]) {
        for node in nodes {
            node.stop()
            node.removeData()
        }
    }

    func subscribe(_ server: ServerProcess) async throws {
        let answer = try await server.call(
            server.db("private", "subscriptions/modify"),
            ["operations": [["operationType": "create", "subscription": ["subscriptionID": "all", "subscriptionType": "database"]]]])
        #expect(answer.status == 200, "\(answer.json)")
    }

    @Test func threeNodesAgreeOnZoneChangesFromNilAndFromEveryToken() async throws {
        let nodes = try await nodes(3)
        defer { stopAll(nodes) }
        // One seed and one set of users: the same tokens on every node.
        #expect(nodes[1].tokens == nodes[0].tokens && nodes[2].tokens == nodes[0].tokens && !nodes[0].tokens.isEmpty)
        #expect(nodes[1].adminToken == nodes[0].adminToken)
        try await nodes[0].createZone("Notes")
        var tokens: [String] = []
        var written: [String] = []
        for index in 0..<24 {
            let writer = nodes[index % 3]
            let reader = nodes[(index + 1) % 3]
            let name = "r\(index)"
            let saved = try await writer.save([name], in: "Notes", fields: ["n": ["value": index]])
            #expect(saved.status == 200, "\(saved.json)")
            written.append(name)
            // Read-your-writes across nodes: the next node sees the write at once.
            let seen = try await reader.zoneChanges("Notes")
            #expect(Set(seen.names) == Set(written), "node \((index + 1) % 3) after a write on node \(index % 3)")
            tokens.append(seen.token)
        }
        // Deletions and updates from other nodes too.
        let deleted = try await nodes[2].call(
            nodes[2].db("private", "records/modify"),
            ["zoneID": ["zoneName": "Notes"], "operations": [["operationType": "forceDelete", "record": ["recordName": "r3"]]]])
        #expect(deleted.status == 200, "\(deleted.json)")
        try await nodes[1].save(["r5"], in: "Notes", fields: ["n": ["value": 500]])

        let fromNil = try await nodes[0].zoneChanges("Notes")
        #expect(Set(fromNil.names) == Set(written).subtracting(["r3"]))
        for node in nodes.dropFirst() {
            let other = try await node.zoneChanges("Notes")
            #expect(other.names == fromNil.names && other.token == fromNil.token)
        }
        for token in tokens {
            let answers = try await nodes.asyncMap { try await $0.zoneChanges("Notes", since: token) }
            #expect(answers[0].status == 200 && answers[0].error == nil)
            for answer in answers.dropFirst() {
                #expect(answer.names == answers[0].names && answer.deleted == answers[0].deleted && answer.token == answers[0].token)
            }
        }
        // A token from one node works on every other (same signing key, same history).
        let last = try await nodes[2].zoneChanges("Notes", since: tokens[20])
        #expect(Set(last.names) == ["r5", "r21", "r22", "r23"] && last.deleted == ["r3"], "\(last)")

        // Admin export, reset and import act on the shared state: made on one node, seen on the others.
        let exported = try await nodes[1].call(nodes[1].admin("export"), [String: Any](), token: nodes[1].adminToken)
        #expect(exported.status == 200)
        #expect(try await nodes[0].call(nodes[0].admin("reset"), [String: Any](), token: nodes[0].adminToken).status == 200)
        #expect(try await nodes[2].zoneChanges("Notes").error?["serverErrorCode"] as? String == "ZONE_NOT_FOUND")
        let imported = try await nodes[2].call(nodes[2].admin("import"), rawBody: exported.data, token: nodes[2].adminToken)
        #expect(imported.status == 200, "\(imported.json)")
        #expect(try await nodes[1].zoneChanges("Notes").names.sorted() == fromNil.names.sorted())
        // The users keep their tokens on every node.
        #expect(try await nodes[0].call(nodes[0].db("private", "zones/list"), user: "bob").status == 200)
    }

    @Test func aDeviceLongPollingOneNodeIsNotifiedOfWritesOnAnother() async throws {
        let nodes = try await nodes(3, arguments: ["--coalescing-window", "0"])
        defer { stopAll(nodes) }
        try await nodes[0].createZone("Notes")
        try await subscribe(nodes[0])
        let phone = try await nodes[0].registerDevice()
        // The phone polls node 1 (its webcourier URL, on node 1's port).
        let onNode1 = phone.url.replacingOccurrences(of: ":\(nodes[0].port)/", with: ":\(nodes[1].port)/")
        var lastID = ""
        for round in 0..<3 {
            async let polled = nodes[1].call(onNode1 + "?timeout=20", timeout: 40)
            // Let the poll reach node 1 before the write; a write before it is delivered on the poll anyway.
            try await Task.sleep(for: .milliseconds(100))
            try await nodes[2].save(["n\(round)"], in: "Notes", device: "laptop")
            let answer = try await polled
            let met = (answer.json["ck"] as? [String: Any])?["met"] as? [String: Any]
            #expect(answer.status == 200 && met?["sid"] as? String == "all", "round \(round): \(answer.status) \(answer.json)")
            lastID = (answer.json["ck"] as? [String: Any])?["nid"] as? String ?? ""
        }
        // Each notification came once: a poll on another node naming the last
        // one it got (as SyncScope's client does) finds nothing else waiting.
        let onNode2 = phone.url.replacingOccurrences(of: ":\(nodes[0].port)/", with: ":\(nodes[2].port)/")
        let idle = try await nodes[2].call(onNode2 + "?timeout=0&lastNotificationID=\(lastID)")
        #expect(idle.status == 200 && idle.data.isEmpty, "\(idle.json)")

        // A client that names nothing: what a poll on node 2 wrote out whole is
        // acknowledged by its next poll on node 0 once node 2 has shared it.
        async let polled = nodes[2].call(onNode2 + "?timeout=20", timeout: 40)
        try await Task.sleep(for: .milliseconds(100))
        try await nodes[1].save(["n-last"], in: "Notes", device: "laptop")
        let got = try await polled
        let gotID = try #require((got.json["ck"] as? [String: Any])?["nid"] as? String, "\(got.json)")
        let cluster = try #require(WithSharedPostgres.cluster)
        let store = try #require(nodes[0].process.arguments?.drop { $0 != "--store" }.dropFirst().first)
        let database = String(store.split(separator: "?")[0].split(separator: "/").last ?? "")
        let deadline = ContinuousClock.now + .seconds(30)
        while try await cluster.psql(
            "SELECT count(*) FROM syncscope.delivery_claim WHERE notification_id = '\(gotID)' AND written", database: database) != "1" {
            guard ContinuousClock.now < deadline else { throw TestFailure("node 2 never shared the written notification") }
            try await Task.sleep(for: .milliseconds(20))
        }
        let onNode0 = try await nodes[0].call(phone.url + "?timeout=0")
        #expect(onNode0.status == 200 && onNode0.data.isEmpty, "\(onNode0.json)")
        // Acknowledged in the journal, its claim is gone.
        #expect(try await cluster.psql("SELECT count(*) FROM syncscope.delivery_claim WHERE notification_id = '\(gotID)'", database: database) == "0")
    }

    @Test func killingANodeDuringWritesLosesNoAcknowledgedWriteAndTheOthersKeepServing() async throws {
        let nodes = try await nodes(2)
        defer { stopAll(nodes) }
        try await nodes[0].createZone("Notes")
        let acknowledged = Acknowledged()
        let victim = nodes[0]
        // Four writers on the node about to die, each saving its own records one by one.
        let writers = Task {
            await withTaskGroup(of: Void.self) { group in
                for writer in 0..<4 {
                    group.addTask {
                        for index in 0..<1000 {
                            let name = "w\(writer)-\(index)"
                            guard let answer = try? await victim.save([name], in: "Notes", timeout: 5), answer.status == 200 else { return }
                            acknowledged.names.withLock { $0.append(name) }
                        }
                    }
                }
            }
        }
        let deadline = ContinuousClock.now + .seconds(60)
        while acknowledged.names.withLock({ $0.count }) < 40, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        victim.kill9()
        await writers.value
        let kept = acknowledged.names.withLock { $0 }
        #expect(kept.count >= 40)
        let survivor = nodes[1]
        let seen = Set(try await survivor.zoneChanges("Notes").names)
        #expect(Set(kept).isSubset(of: seen), "lost: \(Set(kept).subtracting(seen).sorted().prefix(10))")
        // The other node keeps serving writes and reads.
        #expect(try await survivor.save(["after"], in: "Notes").status == 200)
        #expect(try await survivor.zoneChanges("Notes").names.contains("after"))
    }

    @Test func aNodeStartedLaterCatchesUpAndServes() async throws {
        var nodes = try await nodes(1)
        defer { stopAll(nodes) }
        try await nodes[0].createZone("Notes")
        for index in 0..<15 { try await nodes[0].save(["early\(index)"], in: "Notes") }
        let token = try await nodes[0].zoneChanges("Notes").token
        let store = try #require(nodes[0].process.arguments?.drop { $0 != "--store" }.dropFirst().first)
        // The late node brings a user of its own: node 0 lets her in at once.
        let late = try await ServerProcess.start(store: store, arguments: ["--user", "alice", "--user", "bob", "--user", "carol"])
        nodes.append(late)
        #expect(late.log.contains("replayed"), "\(late.log)")
        #expect(late.tokens["alice"] == nodes[0].tokens["alice"] && late.tokens["bob"] == nodes[0].tokens["bob"])
        let carol = try #require(late.tokens["carol"])
        #expect(try await nodes[0].call(nodes[0].db("private", "zones/list"), user: nil, token: carol).status == 200)
        nodes[0].stop()
        let changes = try await late.zoneChanges("Notes")
        #expect(Set(changes.names) == Set((0..<15).map { "early\($0)" }))
        #expect(changes.token == token)
        // The token issued by the stopped node works on the late one.
        #expect(try await late.zoneChanges("Notes", since: token).names.isEmpty)
    }

    @Test func startProblemsAreSentences() async throws {
        let store = try await WithSharedPostgres.freshDatabase()
        let notMigrated = try BinaryRunner.run(["serve", "--port", "0", "--store", store])
        #expect(notMigrated.status == 1 && notMigrated.stderr.contains("--migrate"), "\(notMigrated.stderr)")
        let wrongPassword = store.replacingOccurrences(of: #"://([^:]+):[^@]+@"#, with: "://$1:wrong@", options: .regularExpression)
        let refused = try BinaryRunner.run(["serve", "--port", "0", "--store", wrongPassword, "--migrate"])
        #expect(refused.status == 1 && refused.stderr.contains("password") && !refused.stderr.contains("wrong@"), "\(refused.stderr)")
        let both = try BinaryRunner.run(["serve", "--store", store, "--in-memory"])
        #expect(both.status != 0 && both.stderr.contains("--in-memory"), "\(both.stderr)")
        // Nothing listens on port 1: the database is unreachable, and --migrate says so.
        let unreachable = try BinaryRunner.run(["serve", "--port", "0", "--store", "postgres://syncscope@127.0.0.1:1/none", "--migrate"])
        #expect(unreachable.status == 1 && unreachable.stderr.contains("127.0.0.1:1") && unreachable.stderr.contains("connection refused"), "\(unreachable.stderr)")
        // A schema from another version: --migrate names both versions and changes nothing.
        let cluster = try #require(WithSharedPostgres.cluster)
        let other = try await WithSharedPostgres.freshDatabase()
        let database = String(other.split(separator: "/").last?.split(separator: "?").first ?? "")
        try await cluster.psql(
            "CREATE SCHEMA syncscope; CREATE TABLE syncscope.meta (key text PRIMARY KEY, value text NOT NULL); INSERT INTO syncscope.meta VALUES ('schema_version', '999')",
            database: database)
        let newer = try BinaryRunner.run(["serve", "--port", "0", "--store", other, "--migrate"])
        #expect(newer.status == 1 && newer.stderr.contains("version 999, newer than this syncscope's"), "\(newer.stderr)")
        #expect(try await cluster.psql("SELECT value FROM syncscope.meta WHERE key = 'schema_version'", database: database) == "999")
    }

    /// Each node keeps its own event feed; the doctor reads every node's and
    /// merges them in commit order, so a mistake spread over nodes is named:
    /// one client's three fetches from no token, on two nodes, while it holds a
    /// token — though neither node alone saw three.
    @Test func theDoctorMergesTheFeedsOfTwoNodes() async throws {
        let nodes = try await nodes(2)
        defer { stopAll(nodes) }
        try await nodes[0].createZone("Notes")
        _ = try await nodes[1].save(["a"], in: "Notes", fields: ["n": ["value": 1]])
        for node in [nodes[0], nodes[1], nodes[0]] { _ = try await node.zoneChanges("Notes") }
        func doctor(_ servers: [ServerProcess]) throws -> BinaryRunner.Output {
            try BinaryRunner.run(["doctor", "--admin-token", nodes[0].adminToken, "--json"] + servers.flatMap { ["--server", $0.baseURL.absoluteString] })
        }
        let merged = try doctor(nodes)
        let lines = merged.stdout.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains(#""code":"tokenNotCached""#), "\(merged.stdout)\(merged.stderr)")
        // The evidence is on both nodes: each node alone shows no mistake.
        for node in nodes { #expect(try doctor([node]).stdout.isEmpty) }
    }

    /// A representative part of the HTTP API suite, against a node on PostgreSQL.
    @Test func theHTTPAPITestsPassAgainstAPostgresNode() async throws {
        let suite = NetworkAPITests()
        for test in [
            suite.zonesRecordsAndChangesEndpointsAnswerAsTheSpecSays, suite.badInputGetsA4xxThatNamesTheProblemAndTheServerKeepsServing,
            suite.aliceCannotReadBobsPrivateDatabaseWhateverSheSends, suite.tokensAreCheckedAndExpireAfterCompaction,
            suite.subscriptionsAndSharingWorkOverHTTP, suite.adminExportImportResetPurgeAndEncryptedDataReset,
        ] {
            let store = try await WithSharedPostgres.freshDatabase()
            // The first node on a database prepares it.
            let migrated = try await ServerProcess.start(store: store, arguments: ["--migrate"])
            migrated.stop()
            try await ServerProcess.$postgresStore.withValue(store) { try await test() }
        }
    }
}

/// The writes a server acknowledged, from several writers at once.
final class Acknowledged: Sendable {
    let names = Mutex<[String]>([])
}

extension Array where Element: Sendable {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self { result.append(try await transform(element)) }
        return result
    }
}
