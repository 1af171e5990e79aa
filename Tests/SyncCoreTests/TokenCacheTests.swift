import Foundation
import SyncCore
import SyncClient
import SyncServer
import Testing

@Suite struct TokenCacheTests {
    let zone = Fixture.zone("Notes")

    @Test func databaseAndZoneTokensAreKeptInSeparatePlaces() {
        var cache = TokenCache()
        cache.setDatabaseToken(ServerChangeToken(rawValue: "db"), for: .private)
        cache.setZoneToken(ServerChangeToken(rawValue: "zone"), for: zone, in: .private)
        #expect(cache.databaseTokens == [.private: ServerChangeToken(rawValue: "db")])
        #expect(cache.zoneTokens == [TokenCache.ZoneKey(scope: .private, zoneID: zone): ServerChangeToken(rawValue: "zone")])
        #expect(cache.databaseToken(for: .shared) == nil)
        #expect(cache.zoneToken(for: zone, in: .shared) == nil)
        cache.removeZoneTokens(in: .private)
        #expect(cache.zoneTokens.isEmpty)
        #expect(cache.databaseToken(for: .private) == ServerChangeToken(rawValue: "db"))
    }

    @Test func tokenCacheReloadsAfterRestart() async throws {
        let fixture = Fixture()
        let service = try fixture.connect(device: "phone")
        try await service.createZones([zone])
        try await service.put([Fixture.note("n1", in: zone)])
        let directory = try TemporaryDirectory()
        let url = directory.url.appendingPathComponent("tokens.json")

        do {
            let cache = try FileTokenCache(url: url)
            let db = try await FetchDatabaseChangesOperation(service: service, scope: .private, previousServerChangeToken: cache.databaseToken(for: .private)).fetch()
            try cache.setDatabaseToken(db.serverChangeToken, for: .private)
            let zones = try await FetchRecordZoneChangesOperation(service: service, scope: .private, recordZoneIDs: db.changedZoneIDs).fetch()
            try cache.setZoneToken(zones.latestToken(for: zone), for: zone, in: .private)
        }
        // "Restart": a new instance on the same file.
        let reloaded = try FileTokenCache(url: url)
        let dbToken = try #require(reloaded.databaseToken(for: .private))
        let zoneToken = try #require(reloaded.zoneToken(for: zone, in: .private))
        // The reloaded tokens are accepted by the server and resume where we were.
        #expect(try await FetchDatabaseChangesOperation(service: service, scope: .private, previousServerChangeToken: dbToken).fetch().changedZoneIDs.isEmpty)
        try await service.put([Fixture.note("n2", in: zone)])
        let next = try await FetchRecordZoneChangesOperation(
            service: service, scope: .private, recordZoneIDs: [zone],
            configurationsByRecordZoneID: [zone: .init(previousServerChangeToken: zoneToken)]).fetch()
        #expect(next.changedRecords.map(\.recordID.recordName) == ["n2"])
        // The file keeps the two kinds apart.
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        #expect((json["databaseTokens"] as? [Any])?.count == 1)
        #expect((json["zoneTokens"] as? [Any])?.count == 1)
    }

    @Test func tokenCacheEncodingIsStableAndRoundTrips() throws {
        var cache = TokenCache()
        for name in ["b", "a", "c"] {
            cache.setZoneToken(ServerChangeToken(rawValue: "t-\(name)"), for: Fixture.zone(name), in: .private)
        }
        cache.setDatabaseToken(ServerChangeToken(rawValue: "s"), for: .shared)
        cache.setDatabaseToken(ServerChangeToken(rawValue: "p"), for: .private)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let first = try encoder.encode(cache)
        let decoded = try JSONDecoder().decode(TokenCache.self, from: first)
        #expect(decoded == cache)
        #expect(try encoder.encode(decoded) == first)
        let text = String(decoding: first, as: UTF8.self)
        #expect(text.range(of: "t-a")!.lowerBound < text.range(of: "t-b")!.lowerBound)
    }

    @Test func missingTokenFileIsAnEmptyCache() throws {
        let directory = try TemporaryDirectory()
        let cache = try TokenCache.load(from: directory.url.appendingPathComponent("none.json"))
        #expect(cache.isEmpty)
    }
}
