import SyncCore

/// A device's local cache: records, change tokens (database and zone tokens
/// apart), the zones it knows, and the queue of local changes not yet sent.
///
/// Every write goes through ``apply(_:)``, which applies a whole
/// ``StoreBatch`` — a fetched batch's records, deletions, zone removals and
/// its token — in one transaction: either all of it is stored or none of it,
/// so a crash between batches never leaves a token ahead of its data.
public protocol LocalStore: AnyObject {
    // MARK: Records
    func record(_ recordID: RecordID, in scope: DatabaseScope) throws -> Record?
    /// The records of one zone, by record name.
    func records(in scope: DatabaseScope, zoneID: RecordZoneID) throws -> [Record]
    /// How many records one zone holds (the length of ``records(in:zoneID:)``).
    func recordCount(in scope: DatabaseScope, zoneID: RecordZoneID) throws -> Int
    /// The record at `offset` in ``records(in:zoneID:)``'s order (by record
    /// name), or nil when the zone holds `offset` records or fewer. A store
    /// may answer without listing the zone.
    func record(atOffset offset: Int, in scope: DatabaseScope, zoneID: RecordZoneID) throws -> Record?
    /// Every record of a scope, by zone then record name.
    func allRecords(in scope: DatabaseScope) throws -> [Record]
    /// Records marked stale by a zone refetch that no batch has returned since, sorted.
    func staleRecordIDs(in scope: DatabaseScope, zoneID: RecordZoneID) throws -> [RecordID]

    // MARK: Zones
    /// The zones this device knows exist on the server, sorted.
    func knownZones(in scope: DatabaseScope) throws -> [KnownZone]
    /// Zones the user purged (deleted the app's data in Settings), sorted.
    func purgedZones(in scope: DatabaseScope) throws -> [RecordZoneID]

    // MARK: Tokens
    func databaseToken(for scope: DatabaseScope) throws -> ServerChangeToken?
    func zoneToken(for zoneID: RecordZoneID, in scope: DatabaseScope) throws -> ServerChangeToken?
    /// Every cached token, database and zone tokens apart.
    func tokenCache() throws -> TokenCache

    // MARK: Pending local changes
    /// The queue of local changes not yet sent, oldest first.
    func pendingChanges() throws -> [PendingChange]

    // MARK: Writing
    /// Applies `batch` in one transaction (see ``StoreBatch`` for the order).
    func apply(_ batch: StoreBatch) throws

    /// Called at fixed points inside ``apply(_:)``; throwing there aborts the
    /// transaction. For fault-injection tests.
    var faultInjector: ((StoreFaultPoint) throws -> Void)? { get set }
}

extension LocalStore {
    public func recordCount(in scope: DatabaseScope, zoneID: RecordZoneID) throws -> Int {
        try records(in: scope, zoneID: zoneID).count
    }

    public func record(atOffset offset: Int, in scope: DatabaseScope, zoneID: RecordZoneID) throws -> Record? {
        let records = try records(in: scope, zoneID: zoneID)
        return offset >= 0 && offset < records.count ? records[offset] : nil
    }
}
