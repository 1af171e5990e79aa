import ArgumentParser
import Foundation

/// `syncscope bench`, which used to run the benchmarks: they are a program of
/// their own now (`syncscope-bench`), so the tool people use does not carry
/// them. Hidden from the command list; it says where they went, with the
/// arguments it was given, and fails.
struct BenchMovedCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "The benchmarks moved to their own program, syncscope-bench, installed beside syncscope.",
        shouldDisplay: false
    )

    @Argument(parsing: .allUnrecognized)
    var arguments: [String] = []

    func run() throws {
        let command = (["syncscope-bench"] + arguments).joined(separator: " ")
        FileHandle.standardError.write(Data("""
            syncscope: the benchmarks are their own program now, syncscope-bench, built and installed beside syncscope \
            (measure a release build). Run:
              \(command)

            """.utf8))
        throw ExitCode(2)
    }
}
