import Crypto
import Foundation
import Testing

/// `syncscope client` as a newcomer meets it: what a failure prints, its exit
/// status, and output that shows up while a command is still running.
@Suite struct CLIClientTests {
    /// Waits (bounded) until `text` holds `needle`; false if it never does or the process ends first.
    func waitFor(_ needle: String, in text: TextBuffer, while process: Process) -> Bool {
        for _ in 0..<600 {
            if text.text.contains(needle) { return true }
            if !process.isRunning { return text.text.contains(needle) }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return false
    }

    @Test func aServerErrorIsOneErrorLineWithStatus1AndNoUsageText() throws {
        let server = try ServerProcess()
        defer { server.stop(); server.removeData() }
        let common = ["--server", server.baseURL.absoluteString, "--data", server.dataDirectory.path, "--container", ServerProcess.container]

        let missingZone = try BinaryRunner.run(["client", "fetch", "Nope"] + common)
        #expect(missingZone.status == 1)
        #expect(missingZone.stderr.hasPrefix("Error: ZONE_NOT_FOUND: "))
        #expect(!missingZone.stderr.contains("Usage:"))

        let wrongToken = try BinaryRunner.run(
            ["client", "zones", "--token", "not-a-token", "--server", server.baseURL.absoluteString, "--container", ServerProcess.container])
        #expect(wrongToken.status == 1)
        #expect(wrongToken.stderr.contains("AUTHENTICATION_FAILED"))
        #expect(!wrongToken.stderr.contains("Usage:"))

        let unknownUser = try BinaryRunner.run(["client", "zones", "--user", "carol"] + common)
        #expect(unknownUser.status == 1)
        #expect(unknownUser.stderr.contains("has no user 'carol'; it has alice, bob"))
    }

    @Test func theClientSignsWithAServerKeyThePublicDatabaseOnly() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = P256.Signing.PrivateKey()
        let publicFile = folder.appendingPathComponent("public.pem")
        let privateFile = folder.appendingPathComponent("eckey.pem")
        try key.publicKey.pemRepresentation.write(to: publicFile, atomically: true, encoding: .utf8)
        try key.pemRepresentation.write(to: privateFile, atomically: true, encoding: .utf8)
        let server = try ServerProcess(arguments: ["--server-key", "backend=\(publicFile.path)"])
        defer { server.stop(); server.removeData() }
        let signed = ["--server", server.baseURL.absoluteString, "--container", ServerProcess.container, "--key-id", "backend", "--private-key", privateFile.path]

        let saved = try BinaryRunner.run(["client", "save", "_defaultZone", "notice", "text=Maintenance", "--type", "Notice"] + signed)
        #expect(saved.status == 0, "\(saved.stderr)")
        #expect(saved.stdout.contains("saved"), "\(saved.stdout)")
        let found = try BinaryRunner.run(["client", "query", "Notice", "--database", "public"] + signed)
        #expect(found.status == 0 && found.stdout.contains("Maintenance"), "\(found.stdout)\(found.stderr)")
        // The private database is not the key's.
        let refused = try BinaryRunner.run(["client", "zones"] + signed)
        #expect(refused.status == 1 && refused.stderr.contains("ACCESS_DENIED"), "\(refused.stderr)")
        // Another private key under the same ID is refused.
        try P256.Signing.PrivateKey().pemRepresentation.write(to: privateFile, atomically: true, encoding: .utf8)
        let forged = try BinaryRunner.run(["client", "query", "Notice", "--database", "public"] + signed)
        #expect(forged.status == 1 && forged.stderr.contains("AUTHENTICATION_FAILED"), "\(forged.stderr)")
    }

    @Test func anUnreachableServerSaysSoAndHowToPointElsewhere() throws {
        // A port nothing listens on: a server that was started and stopped.
        let server = try ServerProcess()
        let address = server.baseURL.absoluteString
        server.stop()
        server.removeData()
        let output = try BinaryRunner.run(["client", "zones", "--server", address, "--token", "whatever"])
        #expect(output.status == 1)
        #expect(output.stderr.contains("NETWORK_FAILURE: The server at \(address) could not be reached"))
        #expect(output.stderr.contains("Is `syncscope serve` running there?"))
        #expect(!output.stderr.contains("Usage:"))
    }

    @Test(arguments: [
        ("localhost:8400", "Did you mean http://localhost:8400?"),
        ("http://", "must be an http:// address with a host"),
        ("ftp://example.com", "must be an http:// address with a host"),
    ])
    func aMalformedServerAddressIsAUsageErrorOfTheCommandUsed(address: String, message: String) throws {
        let output = try BinaryRunner.run(["client", "zones", "--server", address, "--token", "t"])
        #expect(output.status == 64)
        #expect(output.stderr.contains(message))
        #expect(output.stderr.contains("Usage: syncscope client zones"))
    }

    @Test(arguments: [
        (["fetch", "Notes", "--results-limit", "0"], "--results-limit must be at least 1 (got 0)"),
        (["fetch", "Notes", "--results-limit", "-3"], "--results-limit must be at least 1 (got -3)"),
        (["save", "Notes", "n", "=3"], "'=3' is not name=value"),
        (["watch", "--count", "0"], "--count must be at least 1"),
        (["watch", "--seconds", "-1"], "--seconds must be more than 0"),
    ])
    func badArgumentsAreRefusedBeforeAnyCall(arguments: [String], message: String) throws {
        // No server runs: the mistake is found before anything is sent.
        let output = try BinaryRunner.run(["client"] + arguments + ["--server", "http://127.0.0.1:1", "--token", "t"])
        #expect(output.status == 64)
        #expect(output.stderr.contains(message), "\(output.stderr)")
        #expect(output.stderr.contains("Usage: syncscope client \(arguments[0])"))
    }

    @Test func watchPrintsEachPushAsItArrivesEvenIntoAPipe() throws {
        let server = try ServerProcess(arguments: ["--coalescing-window", "0"])
        defer { server.stop(); server.removeData() }
        let common = ["--server", server.baseURL.absoluteString, "--data", server.dataDirectory.path, "--container", ServerProcess.container]
        #expect(try BinaryRunner.run(["client", "create-zone", "Notes"] + common).status == 0)

        let watch = Process()
        watch.executableURL = BinaryRunner.binaryURL
        watch.arguments = ["client", "watch", "--seconds", "120"] + common
        let text = TextBuffer()
        let pipe = Pipe()
        watch.standardOutput = pipe
        watch.standardError = pipe
        watch.standardInput = FileHandle.nullDevice
        pipe.fileHandleForReading.readabilityHandler = { text.append($0.availableData) }
        try watch.run()
        defer { if watch.isRunning { watch.terminate(); watch.waitUntilExit() } }

        #expect(waitFor("registered; subscribed to alice's private database", in: text, while: watch))
        #expect(try BinaryRunner.run(["client", "save", "Notes", "note-1", "title=Pushed"] + common).status == 0)
        #expect(waitFor("push: database notification", in: text, while: watch), "\(text.text)")
        #expect(watch.isRunning)
    }

    @Test func deleteWithOwnerDeletesFromAZoneSharedWithYou() throws {
        let server = try ServerProcess()
        defer { server.stop(); server.removeData() }
        let common = ["--server", server.baseURL.absoluteString, "--data", server.dataDirectory.path, "--container", ServerProcess.container]
        #expect(try BinaryRunner.run(["client", "create-zone", "Trip"] + common).status == 0)
        #expect(try BinaryRunner.run(["client", "save", "Trip", "plan", "day=1"] + common).status == 0)
        #expect(try BinaryRunner.run(["client", "share", "Trip", "bob"] + common).status == 0)

        let deleted = try BinaryRunner.run(["client", "delete", "Trip", "plan", "--owner", "alice", "--user", "bob"] + common)
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(deleted.stdout == "deleted plan\n")
        let fetched = try BinaryRunner.run(["client", "fetch", "Trip"] + common)
        #expect(fetched.status == 0)
        #expect(!fetched.stdout.contains("plan"))
    }

    @Test func aRecordWithoutFieldsPrintsNoTrailingSpace() throws {
        let server = try ServerProcess()
        defer { server.stop(); server.removeData() }
        let common = ["--server", server.baseURL.absoluteString, "--data", server.dataDirectory.path, "--container", ServerProcess.container]
        #expect(try BinaryRunner.run(["client", "create-zone", "Notes"] + common).status == 0)
        let saved = try BinaryRunner.run(["client", "save", "Notes", "empty"] + common)
        #expect(saved.stdout == "saved empty (Note, tag 1)\n")
    }
}
