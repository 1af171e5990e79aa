import Foundation

/// Runs the `syncscope` binary built next to the test bundle.
enum BinaryRunner {
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static var binaryURL: URL {
        // The test bundle (or binary) lives in the same build folder as the executable.
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("syncscope")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: ".build/debug/syncscope")
    }

    static func run(_ arguments: [String]) throws -> Output {
        let process = Process()
        process.executableURL = binaryURL
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
