import Foundation

/// Runs the `syncscope` binary (or `syncscope-bench`) built next to the test bundle.
enum BinaryRunner {
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static var binaryURL: URL { url(of: "syncscope") }

    /// The executable of that name in the build folder of the test bundle (or binary).
    static func url(of executable: String) -> URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent(executable)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: ".build/debug/\(executable)")
    }

    /// Runs `syncscope` with these arguments.
    static func run(_ arguments: [String]) throws -> Output {
        try run(url(of: "syncscope"), arguments)
    }

    /// Runs `syncscope-bench` with these arguments.
    static func runBench(_ arguments: [String]) throws -> Output {
        try run(url(of: "syncscope-bench"), arguments)
    }

    private static func run(_ executable: URL, _ arguments: [String]) throws -> Output {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read both pipes to the end before waiting, so a large output cannot block the child.
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus,
            stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }
}
