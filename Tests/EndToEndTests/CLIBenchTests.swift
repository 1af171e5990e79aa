import Foundation
import Testing

/// `syncscope-bench` as a person reads it: figures that agree with their
/// labels, a table whose columns line up, and errors in a sentence.
@Suite struct CLIBenchTests {
    static let small = ["--records", "10000", "--save-records", "1000", "--routing-saves", "100", "--burst-saves", "100"]

    @Test func aBurstShorterThanOneCoalescingWindowExpectsOnePushPerOtherDevice() throws {
        let result = try BinaryRunner.runBench(["--json"] + Self.small)
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Double])
        // 100 saves within one 200 ms window: each of the 99 other devices gets one push (it used to say 0).
        #expect(object["burst_pushes_expected"] == 99)
        #expect(object["burst_pushes_delivered"] == 99)
    }

    @Test func theTableGroupsLargeNumbersAndKeepsItsColumnsAligned() throws {
        let result = try BinaryRunner.runBench([] + Self.small)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("fetch 100 changes, 10,000-change history") })
        #expect(lines.contains { $0.hasPrefix("full fetch from nil, 10,000 records") && $0.contains("≥ 1,000,000") })
        // Every goal starts in the same column, however wide the value before it.
        let goalColumns = Set(lines.compactMap { line -> Int? in
            guard let range = line.range(of: "≤ ") ?? line.range(of: "≥ ") else { return nil }
            return line.distance(from: line.startIndex, to: range.lowerBound)
        })
        #expect(goalColumns.count == 1, "\(result.stdout)")
        let header = try #require(lines.first)
        #expect(goalColumns.first == header.distance(from: header.startIndex, to: try #require(header.range(of: "goal")).lowerBound))
    }

    @Test func schemaOnlyAndSignedOnlyGiveOnlyTheirFigures() throws {
        let schema = try BinaryRunner.runBench(["--json", "--schema-only", "--save-records", "1000"])
        #expect(schema.status == 0, "\(schema.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(schema.stdout.utf8)) as? [String: Double])
        #expect(Set(object.keys) == ["schema_save_records_per_s", "no_schema_save_records_per_s", "schema_save_ratio"])
        #expect((object["schema_save_ratio"] ?? 0) > 0)

        let signed = try BinaryRunner.runBench(["--json", "--http", "--signed-only", "--http-saves", "100"])
        #expect(signed.status == 0, "\(signed.stderr)")
        let figures = try #require(try JSONSerialization.jsonObject(with: Data(signed.stdout.utf8)) as? [String: Double])
        #expect(Set(figures.keys) == ["http_unsigned_lookups_per_s", "http_signed_lookups_per_s", "http_signed_p50_extra_ms", "http_signed_request_ratio"])
        #expect((figures["http_signed_request_ratio"] ?? 0) > 0)

        let alone = try BinaryRunner.runBench(["--signed-only"])
        #expect(alone.status != 0)
        #expect(alone.stderr.contains("--signed-only measures signed requests on a server of its own: pass --http"), "\(alone.stderr)")
    }

    /// The feed's cost at a small size: both watchers (the lean reader and
    /// the decoding one) must read every event of their servers, none dropped
    /// by the ring, or the bench fails with status 1.
    @Test func feedOnlyGivesOnlyTheFeedFiguresWithEveryEventRead() throws {
        let result = try BinaryRunner.runBench(["--json", "--http", "--feed-only", "--http-saves", "300"])
        #expect(result.status == 0, "\(result.stderr)")
        let figures = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Double])
        #expect(Set(figures.keys) == [
            "http_save_feed_off_per_s", "http_save_feed_off_resolution", "http_save_feed_idle_ratio", "http_save_feed_watched_ratio",
            "http_save_feed_watcher_backlog", "http_save_feed_decoding_watcher_ratio",
        ])
        for key in ["http_save_feed_off_per_s", "http_save_feed_idle_ratio", "http_save_feed_watched_ratio", "http_save_feed_decoding_watcher_ratio"] {
            #expect((figures[key] ?? 0) > 0, "\(key): \(figures[key] ?? 0)")
        }
        // What a watcher had left when its server's saves ended: never more than the saves it was sent.
        #expect((0...300).contains(figures["http_save_feed_watcher_backlog"] ?? -1))
    }

    @Test func anUnreachableServerIsAnErrorSentenceWithStatus1() throws {
        let server = try ServerProcess()
        let address = server.baseURL.absoluteString
        server.stop()
        server.removeData()
        let result = try BinaryRunner.runBench(["--server", address, "--token", "t", "--http-saves", "10", "--push-samples", "1"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("Error: NETWORK_FAILURE: The server at \(address) could not be reached"))
        #expect(!result.stderr.contains("networkFailure ("))
    }

    @Test func syncscopeBenchSaysWhereTheBenchmarksWentAndFails() throws {
        let result = try BinaryRunner.run(["bench", "--http", "--json"])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("\n  syncscope-bench --http --json"), "\(result.stderr)")
        // A user of the binary has no package to `swift run` in.
        #expect(!result.stderr.contains("swift run"), "\(result.stderr)")
        let help = try BinaryRunner.run(["help"])
        #expect(help.status == 0)
        #expect(!help.stdout.contains("bench"), "\(help.stdout)")
    }

    @Test func theBenchIsItsOwnCommand() throws {
        let result = try BinaryRunner.runBench(["--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("USAGE: syncscope-bench"), "\(result.stdout)")
        #expect(result.stdout.contains("--http"))
    }
}
