import Foundation

/// A program from outside the package (a Python client, an API tester) run
/// against a server: its output gathered, its time bounded.
struct ExternalTool {
    var executable: URL
    var arguments: [String]
    var environment: [String: String]? = nil
    var directory: URL? = nil

    /// What a run printed (stdout and stderr together), and its exit status;
    /// `nil` when it did not finish within the time given (then it is stopped).
    struct Run {
        var status: Int32?
        var text: String
    }

    /// Runs the tool, polling (without holding a thread) until it exits or `seconds` pass.
    func run(within seconds: Double) async throws -> Run {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = directory }
        let output = TextBuffer()
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        pipe.fileHandleForReading.readabilityHandler = { output.append($0.availableData) }
        try process.run()
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            pipe.fileHandleForReading.readabilityHandler = nil
            return Run(status: nil, text: output.text)
        }
        process.waitUntilExit()
        pipe.fileHandleForReading.readabilityHandler = nil
        output.append(pipe.fileHandleForReading.readDataToEndOfFile())
        return Run(status: process.terminationStatus, text: output.text)
    }
}
