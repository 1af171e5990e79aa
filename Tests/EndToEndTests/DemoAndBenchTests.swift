import Foundation
import Testing

@Suite struct DemoAndBenchTests {
    @Test func demoTellsTheTokenStoryAndIsByteForByteRepeatable() throws {
        let first = try BinaryRunner.run(["demo", "--seed", "3"])
        let second = try BinaryRunner.run(["demo", "--seed", "3"])
        #expect(first.status == 0, "stderr: \(first.stderr)")
        #expect(first.stdout == second.stdout)
        // A first fetch with no token, in batches, then an incremental fetch.
        #expect(first.stdout.contains("NO token"))
        #expect(first.stdout.contains("moreComing=true"))
        #expect(first.stdout.contains("note-2 \"Trip ideas: Lisbon, Porto, Faro\", note-4 deleted (Note)"))
        #expect(first.stdout.contains("(unchanged)"))
        #expect(first.stdout.contains("needs a database token"))
    }

    @Test func demoWithAnotherSeedIssuesOtherTokens() throws {
        let a = try BinaryRunner.run(["demo", "--seed", "3"])
        let b = try BinaryRunner.run(["demo", "--seed", "4"])
        #expect(a.stdout != b.stdout)
    }

    @Test func demoRejectsANonsensicalResultsLimitWithAClearMessage() throws {
        let result = try BinaryRunner.run(["demo", "--results-limit", "0"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("--results-limit must be at least 1"))
    }

    @Test func benchPrintsOneJSONObjectWithTheAgreedKeys() throws {
        let result = try BinaryRunner.runBench(["--json", "--records", "10000", "--save-records", "2000", "--routing-saves", "500", "--burst-saves", "400"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let keys = Set(object?.keys.map { $0 } ?? [])
        for key in [
            "fetch_100_of_1k_ms", "fetch_100_of_1m_ms", "fetch_scaling_ratio", "save_records_per_s",
            "save_vs_dictionary_ratio", "full_fetch_records_per_s", "bytes_per_record",
            "routing_ratio_10k_vs_10_subscriptions", "burst_pushes_delivered", "burst_seconds",
            "query_100_among_1k_ms", "query_100_among_1m_ms", "query_scaling_ratio",
        ] {
            #expect(keys.contains(key), "missing \(key)")
        }
    }
}
