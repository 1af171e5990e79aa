import Foundation
import SyncCore

/// A ``TokenCache`` kept in a JSON file: every change is written through,
/// so a new instance on the same file (after a restart) sees the same tokens.
public final class FileTokenCache {
    public let url: URL
    public private(set) var cache: TokenCache

    /// Opens the cache at `url`, reading what an earlier run wrote there.
    public init(url: URL) throws {
        self.url = url
        cache = try TokenCache.load(from: url)
    }

    public func databaseToken(for scope: DatabaseScope) -> ServerChangeToken? { cache.databaseToken(for: scope) }

    public func zoneToken(for zoneID: RecordZoneID, in scope: DatabaseScope) -> ServerChangeToken? {
        cache.zoneToken(for: zoneID, in: scope)
    }

    public func setDatabaseToken(_ token: ServerChangeToken?, for scope: DatabaseScope) throws {
        var updated = cache
        updated.setDatabaseToken(token, for: scope)
        try write(updated)
    }

    public func setZoneToken(_ token: ServerChangeToken?, for zoneID: RecordZoneID, in scope: DatabaseScope) throws {
        var updated = cache
        updated.setZoneToken(token, for: zoneID, in: scope)
        try write(updated)
    }

    private func write(_ updated: TokenCache) throws {
        try updated.save(to: url)
        cache = updated
    }
}
