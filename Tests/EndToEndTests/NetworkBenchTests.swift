import Foundation
import Testing

@Suite struct NetworkBenchTests {
    @Test func httpBenchPrintsTheAgreedKeysAgainstAThrowawayServer() throws {
        let result = try BinaryRunner.runBench(["--http", "--json", "--http-saves", "160", "--http-clients", "16", "--push-samples", "5", "--restart-records", "4000"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        for key in ["http_saves_per_s", "http_save_p50_ms", "http_save_p99_ms", "http_zone_changes_records_per_s", "http_query_per_s", "http_query_p50_ms", "push_latency_p50_ms",
            "restart_4k_replay_s", "restart_4k_replay_ceiling_s", "restart_4k_checkpoint_s", "restart_4k_checkpoint_ceiling_s",
            "restart_replay_growth", "restart_checkpoint_growth", "http_save_feed_off_per_s", "http_save_feed_idle_ratio", "http_save_feed_watched_ratio"] {
            let value = object?[key] as? Double
            #expect(value.map { $0 > 0 } == true, "\(key): \(String(describing: object?[key]))")
        }
    }

    @Test func httpBenchRefusesAServerOffThisMachine() throws {
        let result = try BinaryRunner.runBench(["--server", "http://10.1.2.3:8400", "--token", "x"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("loopback"))
    }
}
