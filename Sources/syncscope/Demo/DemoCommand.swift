import ArgumentParser
import SyncCore
import SyncServer

struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Print a short headless tour of change-token sync: two devices, a zone, batches and tokens."
    )

    @Option(parsing: .unconditional, help: "Seed for the simulation; the same seed prints the same story, byte for byte.")
    var seed: UInt64 = 1

    @Option(parsing: .unconditional, help: "resultsLimit for the first fetch, to show batching with moreComing.")
    var resultsLimit: Int = 2

    func validate() throws {
        guard resultsLimit > 0 else { throw ValidationError("--results-limit must be at least 1 (got \(resultsLimit)).") }
    }

    func run() async throws {
        try await HeadlessDemo(seed: seed, resultsLimit: resultsLimit).run(printer: { print($0) })
    }
}

