import SyncCore

/// Everything one step of sync writes, applied by ``LocalStore/apply(_:)``
/// in one transaction, in this order:
///
/// 1. `beginDatabaseRefetch`: the database token goes, every known zone of
///    the scope is marked stale;
/// 2. `beginZoneRefetch`: those zones' tokens go, their records are marked stale;
/// 3. `zoneRemovals`;
/// 4. `zonesNeedingFetch`, `zonesConfirmed` (known, not stale), `zonesFetched`;
/// 5. `deletedRecordIDs`, then `savedRecords` (no longer stale);
/// 6. `pendingRemovals`, then `pendingUpserts` (replacing same-key entries);
/// 7. `purgedZonesAdded`, `purgedZonesRemoved`;
/// 8. the tokens: `databaseToken`, `zoneTokens`.
public struct StoreBatch: Sendable {
    public var scope: DatabaseScope
    public var beginDatabaseRefetch = false
    public var beginZoneRefetch: [RecordZoneID] = []
    public var zoneRemovals: [ZoneRemoval] = []
    public var zonesNeedingFetch: [RecordZoneID] = []
    public var zonesConfirmed: [RecordZoneID] = []
    public var zonesFetched: [RecordZoneID] = []
    public var deletedRecordIDs: [RecordID] = []
    public var savedRecords: [Record] = []
    public var pendingRemovals: [PendingChange.Key] = []
    public var pendingUpserts: [PendingChange] = []
    public var purgedZonesAdded: [RecordZoneID] = []
    public var purgedZonesRemoved: [RecordZoneID] = []
    public var databaseToken: TokenUpdate?
    public var zoneTokens: [ZoneTokenChange] = []

    public init(scope: DatabaseScope) {
        self.scope = scope
    }

    public var isEmpty: Bool {
        !beginDatabaseRefetch && beginZoneRefetch.isEmpty && zoneRemovals.isEmpty && zonesNeedingFetch.isEmpty
            && zonesConfirmed.isEmpty && zonesFetched.isEmpty && deletedRecordIDs.isEmpty && savedRecords.isEmpty
            && pendingRemovals.isEmpty && pendingUpserts.isEmpty && purgedZonesAdded.isEmpty && purgedZonesRemoved.isEmpty
            && databaseToken == nil && zoneTokens.isEmpty
    }
}
