import Foundation
import SyncCore
import SyncWire
import SyncServer

/// What start-up builds the engine from, and the server's secrets.
extension ServerHost {
    /// A file-system error as a sentence, not a dump of its domain and user info.
    package static func explain(_ error: any Error, at directory: URL) -> String {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), !isDirectory.boolValue {
            return "it is a file, not a folder."
        }
        // The nearest folder above that exists says why none could be made
        // (Foundation says only "NSCocoaErrorDomain error 512").
        var above = directory.deletingLastPathComponent()
        while above.path != "/", !FileManager.default.fileExists(atPath: above.path) {
            above = above.deletingLastPathComponent()
        }
        if FileManager.default.fileExists(atPath: above.path, isDirectory: &isDirectory), !isDirectory.boolValue {
            return "\(above.path) is a file, not a folder, so no folder can be made inside it."
        }
        if !FileManager.default.fileExists(atPath: directory.path), !FileManager.default.isWritableFile(atPath: above.path) {
            return "it does not exist, and it cannot be made: \(above.path) is not writable."
        }
        var text = "\(error)"
        if let cocoa = error as? CocoaError {
            let underlying = (cocoa as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
            if let underlying, underlying.domain == NSPOSIXErrorDomain, let message = strerror(Int32(underlying.code)) {
                text = String(cString: message)
            } else {
                text = (cocoa as NSError).localizedDescription
            }
        }
        return text.hasSuffix(".") ? text : text + "."
    }

    package struct Settings: Equatable, CustomStringConvertible {
        package var retention: Int?
        package var coalescingWindow: Milliseconds
        package init(retention: Int?, coalescingWindow: Milliseconds) {
            self.retention = retention
            self.coalescingWindow = coalescingWindow
        }
        package var description: String {
            "retention \(retention.map { "\($0) changes" } ?? "unlimited"), coalescing window \(coalescingWindow) ms"
        }
    }

    package static func makeCore(seed: UInt64, settings: Settings, clock: CallClock) -> ServerCore {
        ServerCore(
            engine: ServerEngine(configuration: ServerConfiguration(retention: settings.retention, seed: seed), clock: clock),
            push: PushEngine(configuration: PushConfiguration(coalescingWindow: settings.coalescingWindow, deliveryLatency: 0), seed: seed))
    }

    package static func checkpointFile(_ core: ServerCore) -> ServerStateFile {
        var file = core.engine.checkpointState()
        file.push = core.push.exportState(includingDevices: true, reseeding: true)
        return file
    }

    /// A checkpoint of the state as it is now, whose bytes are made later
    /// (on the committer's checkpoint thread, off the state lock). Taking it costs what the
    /// zones and users cost, not the records: the engine's snapshot shares its
    /// collections copy-on-write.
    package static func checkpointLater(_ core: ServerCore) -> (records: Int, encode: @Sendable () throws -> Data) {
        let snapshot = core.engine.checkpointSnapshot()
        let push = core.push.exportState(includingDevices: true, reseeding: true)
        return (snapshot.recordCount, {
            var file = snapshot.file()
            file.push = push
            return try CheckpointFormat.encode(file)
        })
    }

    package static func restore(_ file: ServerStateFile, into core: ServerCore) throws(CloudError) {
        try core.engine.importState(file, keepingHistory: true)
        try core.push.importState(file.push, restoringDevices: true)
    }

    package static func jsonString(_ text: String) -> String {
        (try? WireJSON.string(text)) ?? "\"\""
    }

    /// 32 random bytes as hex, from the system's secure generator.
    package static func randomSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    package static let adminFileName = "admin.json"

    /// The admin token of `admin.json` in the data folder, or a new one written there (mode 0600).
    package static func loadOrMakeAdminToken(_ directory: URL?) throws -> String {
        struct File: Codable { var adminToken: String }
        guard let directory else { return "admin-" + randomSecret() }
        let url = directory.appendingPathComponent(adminFileName)
        if let data = try? Data(contentsOf: url), let file = try? JSONDecoder().decode(File.self, from: data), file.adminToken.count >= 32 {
            try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
            return file.adminToken
        }
        let token = "admin-" + randomSecret()
        try writePrivately(try WireJSON.encode(File(adminToken: token), prettyPrinted: true), to: url)
        return token
    }

    /// Writes a file only its owner can read (mode 0600), atomically.
    package static func writePrivately(_ data: Data, to url: URL) throws {
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(getpid()).tmp")
        guard FileManager.default.createFile(atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw ServeError("Cannot write \(url.path).")
        }
        guard rename(temporary.path, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw ServeError("Cannot write \(url.path): \(reason).")
        }
        try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
    }
}
