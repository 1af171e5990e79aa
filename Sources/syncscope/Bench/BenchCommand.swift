import ArgumentParser
import Foundation

struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure the simulated server's costs (build with -c release).",
        discussion: """
            Each figure is measured in one run, with ratios so that machine noise cancels. \
            Run it as: swift run -c release syncscope bench [--json]
            """
    )

    @Flag(help: "Print one JSON object instead of a table.")
    var json = false

    @Option(help: "Records in the large zone (the goals are stated for 1,000,000).")
    var records: Int = 1_000_000

    @Option(help: "Records saved for the save-throughput measurement.")
    var saveRecords: Int = 300_000

    @Option(help: "Saves timed for the push-routing comparison.")
    var routingSaves: Int = 50_000

    @Option(help: "Saves in the coalesced push burst (one per virtual millisecond).")
    var burstSaves: Int = 10_000

    func validate() throws {
        guard routingSaves >= 100 else { throw ValidationError("--routing-saves must be at least 100 (got \(routingSaves)).") }
        guard burstSaves >= 100 else { throw ValidationError("--burst-saves must be at least 100 (got \(burstSaves)).") }
        guard records >= 10_000 else { throw ValidationError("--records must be at least 10000 (got \(records)).") }
        guard saveRecords >= 1_000 else { throw ValidationError("--save-records must be at least 1000 (got \(saveRecords)).") }
    }

    func run() throws {
        #if DEBUG
        FileHandle.standardError.write(Data("warning: this is a debug build; figures are meaningful only with `swift run -c release syncscope bench`.\n".utf8))
        #endif
        let suite = BenchmarkSuite(largeZoneRecords: records, saveRecords: saveRecords, routingSaves: routingSaves, burstSaves: burstSaves)
        let results = try suite.run()
        print(json ? results.json() : results.table())
    }
}
