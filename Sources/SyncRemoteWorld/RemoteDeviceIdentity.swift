import Foundation
import Synchronization
import SyncCore
import SyncClient
import SyncNetwork
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SyncSQLiteStore
import SyncWorlds

/// A device's identity, kept in its data folder next to its cache.
struct RemoteDeviceIdentity: Codable, Equatable {
    static let fileName = "device.json"
    static let cacheFileName = "cache.sqlite"

    var deviceID: String
    var user: String
    var name: String
    var server: String
    var container: String
    var environment: String

    static func load(from directory: URL) throws(CloudError) -> RemoteDeviceIdentity? {
        let file = directory.appendingPathComponent(fileName)
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        do {
            return try JSONDecoder().decode(RemoteDeviceIdentity.self, from: Data(contentsOf: file))
        } catch {
            throw CloudError(
                .invalidArguments,
                "\(file.path) is not a device identity SyncScope can read (\(error.localizedDescription)); move it away or use another data folder.")
        }
    }

    func save(in directory: URL) throws(CloudError) {
        let file = directory.appendingPathComponent(Self.fileName)
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(self).write(to: file, options: .atomic)
        } catch {
            throw CloudError(.internalError, "Cannot write \(file.path): \(error.localizedDescription)")
        }
    }
}
