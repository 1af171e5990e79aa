import Foundation
import SyncCore

/// A device's cache of change tokens.
///
/// Database tokens (from `changes/database`) and zone tokens (from
/// `changes/zone`) are not interchangeable, so they live in two separate
/// dictionaries: one keyed by database scope, one by scope and zone.
/// It encodes to JSON with a stable layout (sorted), so it can be written to
/// a file and read back after a restart.
public struct TokenCache: Sendable, Hashable, Codable {
    /// Where a zone token belongs: the database scope and the zone.
    public struct ZoneKey: Sendable, Hashable, Comparable, CustomStringConvertible {
        public var scope: DatabaseScope
        public var zoneID: RecordZoneID

        public init(scope: DatabaseScope, zoneID: RecordZoneID) {
            self.scope = scope
            self.zoneID = zoneID
        }

        public static func < (lhs: ZoneKey, rhs: ZoneKey) -> Bool {
            (lhs.scope, lhs.zoneID) < (rhs.scope, rhs.zoneID)
        }

        public var description: String { "\(scope.rawValue):\(zoneID)" }
    }

    /// `changes/database` tokens, one per database scope.
    public private(set) var databaseTokens: [DatabaseScope: ServerChangeToken] = [:]
    /// `changes/zone` tokens, one per zone.
    public private(set) var zoneTokens: [ZoneKey: ServerChangeToken] = [:]

    public init() {}

    public var isEmpty: Bool { databaseTokens.isEmpty && zoneTokens.isEmpty }

    // MARK: Database tokens

    public func databaseToken(for scope: DatabaseScope) -> ServerChangeToken? {
        databaseTokens[scope]
    }

    /// Caches `token` for `scope`'s database, overwriting the previous one; `nil` removes it.
    public mutating func setDatabaseToken(_ token: ServerChangeToken?, for scope: DatabaseScope) {
        databaseTokens[scope] = token
    }

    // MARK: Zone tokens

    public func zoneToken(for zoneID: RecordZoneID, in scope: DatabaseScope) -> ServerChangeToken? {
        zoneTokens[ZoneKey(scope: scope, zoneID: zoneID)]
    }

    /// Caches `token` for a zone, overwriting the previous one; `nil` removes it.
    public mutating func setZoneToken(_ token: ServerChangeToken?, for zoneID: RecordZoneID, in scope: DatabaseScope) {
        zoneTokens[ZoneKey(scope: scope, zoneID: zoneID)] = token
    }

    /// Removes the zone tokens of `scope` (every scope when `nil`).
    public mutating func removeZoneTokens(in scope: DatabaseScope? = nil) {
        guard let scope else { zoneTokens.removeAll(); return }
        zoneTokens = zoneTokens.filter { $0.key.scope != scope }
    }

    /// The zones with a cached token in `scope`, sorted.
    public func zonesWithTokens(in scope: DatabaseScope) -> [RecordZoneID] {
        zoneTokens.keys.filter { $0.scope == scope }.map(\.zoneID).sorted()
    }

    public mutating func removeAll() {
        databaseTokens.removeAll()
        zoneTokens.removeAll()
    }

    // MARK: Persistence

    /// Reads a cache written by ``save(to:)``; a missing file is an empty cache.
    public static func load(from url: URL) throws -> TokenCache {
        guard FileManager.default.fileExists(atPath: url.path) else { return TokenCache() }
        let data = try Data(contentsOf: url)
        do {
            return try JSONDecoder().decode(TokenCache.self, from: data)
        } catch {
            throw CloudError(.invalidArguments, "The token cache at \(url.path) is not a token cache this version can read: \(error)")
        }
    }

    /// Writes the cache as JSON, atomically (a crash leaves the old file or the new one).
    public func save(to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(self).write(to: url, options: .atomic)
    }

    // MARK: Codable

    private enum CodingKeys: String, CodingKey {
        case databaseTokens, zoneTokens
    }

    private struct DatabaseEntry: Codable {
        var scope: DatabaseScope
        var token: ServerChangeToken
    }

    private struct ZoneEntry: Codable {
        var scope: DatabaseScope
        var zoneName: String
        var ownerName: String
        var token: ServerChangeToken
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        for entry in try container.decode([DatabaseEntry].self, forKey: .databaseTokens) {
            databaseTokens[entry.scope] = entry.token
        }
        for entry in try container.decode([ZoneEntry].self, forKey: .zoneTokens) {
            zoneTokens[ZoneKey(scope: entry.scope, zoneID: RecordZoneID(zoneName: entry.zoneName, ownerName: entry.ownerName))] = entry.token
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        let databases = databaseTokens.sorted { $0.key < $1.key }.map { DatabaseEntry(scope: $0.key, token: $0.value) }
        let zones = zoneTokens.sorted { $0.key < $1.key }.map {
            ZoneEntry(scope: $0.key.scope, zoneName: $0.key.zoneID.zoneName, ownerName: $0.key.zoneID.ownerName, token: $0.value)
        }
        try container.encode(databases, forKey: .databaseTokens)
        try container.encode(zones, forKey: .zoneTokens)
    }
}
