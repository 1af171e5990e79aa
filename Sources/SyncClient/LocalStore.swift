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

/// Where inside ``LocalStore/apply(_:)`` a fault can be injected.
public enum StoreFaultPoint: String, Sendable, Hashable, CaseIterable {
    /// Records saved and deleted, nothing else yet.
    case afterRecords
    /// Everything but the tokens written.
    case beforeTokens
    /// Everything written, not yet committed.
    case beforeCommit
}

/// A zone the device knows exists on the server.
public struct KnownZone: Sendable, Hashable, Comparable {
    public var zoneID: RecordZoneID
    /// The database reported a change the device has not fetched yet.
    public var needsFetch: Bool
    /// A full database refetch started and has not reported this zone yet.
    public var isStale: Bool

    public init(zoneID: RecordZoneID, needsFetch: Bool, isStale: Bool) {
        self.zoneID = zoneID
        self.needsFetch = needsFetch
        self.isStale = isStale
    }

    public static func < (lhs: KnownZone, rhs: KnownZone) -> Bool { lhs.zoneID < rhs.zoneID }
}

/// One queued local change. At most one per record (a save or a deletion)
/// and one save and one deletion per zone.
public struct PendingChange: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        case saveZone, deleteZone, saveRecord, deleteRecord
    }

    /// What a pending change is about; a new change with the same key replaces the old one.
    public struct Key: Sendable, Hashable, Comparable {
        public var scope: DatabaseScope
        public var zoneID: RecordZoneID
        /// `zone:save`, `zone:delete` or `record:<name>`.
        public var target: String

        public static func < (lhs: Key, rhs: Key) -> Bool {
            (lhs.scope, lhs.zoneID, lhs.target) < (rhs.scope, rhs.zoneID, rhs.target)
        }
    }

    public var scope: DatabaseScope
    public var kind: Kind
    public var zoneID: RecordZoneID
    /// `nil` for zone changes.
    public var recordName: String?
    /// For record changes (may be empty for a deletion of an unknown type).
    public var recordType: String
    /// For saves: the fields changed locally (set or removed), sorted. On a
    /// conflict these are written over the server's record.
    public var changedKeys: [String]
    /// For saves: the record was created on this device and has certainly
    /// never reached the server, so deleting it before it is sent needs no request.
    public var isNewRecord: Bool
    /// For saves: how the save is sent (`CKModifyRecordsOperation.savePolicy`);
    /// always `.ifServerRecordUnchanged` for other kinds.
    public var savePolicy: RecordSavePolicy

    public init(
        scope: DatabaseScope, kind: Kind, zoneID: RecordZoneID, recordName: String?, recordType: String = "",
        changedKeys: [String] = [], isNewRecord: Bool = false, savePolicy: RecordSavePolicy = .ifServerRecordUnchanged
    ) {
        self.scope = scope
        self.kind = kind
        self.zoneID = zoneID
        self.recordName = recordName
        self.recordType = recordType
        self.changedKeys = Array(Set(changedKeys)).sorted()
        self.isNewRecord = kind == .saveRecord && isNewRecord
        self.savePolicy = kind == .saveRecord ? savePolicy : .ifServerRecordUnchanged
    }

    public static func saveZone(_ zoneID: RecordZoneID, scope: DatabaseScope = .private) -> PendingChange {
        PendingChange(scope: scope, kind: .saveZone, zoneID: zoneID, recordName: nil)
    }

    public static func deleteZone(_ zoneID: RecordZoneID, scope: DatabaseScope = .private) -> PendingChange {
        PendingChange(scope: scope, kind: .deleteZone, zoneID: zoneID, recordName: nil)
    }

    public static func saveRecord(
        _ recordID: RecordID, recordType: String, changedKeys: [String], scope: DatabaseScope, isNewRecord: Bool = false,
        savePolicy: RecordSavePolicy = .ifServerRecordUnchanged
    ) -> PendingChange {
        PendingChange(
            scope: scope, kind: .saveRecord, zoneID: recordID.zoneID, recordName: recordID.recordName, recordType: recordType,
            changedKeys: changedKeys, isNewRecord: isNewRecord, savePolicy: savePolicy)
    }

    public static func deleteRecord(_ recordID: RecordID, recordType: String, scope: DatabaseScope) -> PendingChange {
        PendingChange(scope: scope, kind: .deleteRecord, zoneID: recordID.zoneID, recordName: recordID.recordName, recordType: recordType)
    }

    public var recordID: RecordID? {
        recordName.map { RecordID(recordName: $0, zoneID: zoneID) }
    }

    public var isRecordChange: Bool { kind == .saveRecord || kind == .deleteRecord }

    public var key: Key {
        let target: String
        switch kind {
        case .saveZone: target = "zone:save"
        case .deleteZone: target = "zone:delete"
        case .saveRecord, .deleteRecord: target = "record:" + (recordName ?? "")
        }
        return Key(scope: scope, zoneID: zoneID, target: target)
    }

    public static func recordKey(_ recordID: RecordID, scope: DatabaseScope) -> Key {
        Key(scope: scope, zoneID: recordID.zoneID, target: "record:" + recordID.recordName)
    }

    public var description: String {
        switch kind {
        case .saveZone: "save zone \(zoneID) (\(scope.rawValue))"
        case .deleteZone: "delete zone \(zoneID) (\(scope.rawValue))"
        case .saveRecord:
            "save \(isNewRecord ? "new " : "")\(recordName ?? "?") in \(zoneID) [\(changedKeys.joined(separator: ","))]"
                + (savePolicy == .ifServerRecordUnchanged ? "" : " savePolicy \(savePolicy.rawValue)")
        case .deleteRecord: "delete \(recordName ?? "?") in \(zoneID)"
        }
    }
}

/// How a token changes in a ``StoreBatch``.
public enum TokenUpdate: Sendable, Hashable {
    case set(ServerChangeToken)
    case remove

    var token: ServerChangeToken? {
        if case .set(let token) = self { return token }
        return nil
    }
}

/// A zone token change in a ``StoreBatch``.
public struct ZoneTokenChange: Sendable, Hashable {
    public var zoneID: RecordZoneID
    public var update: TokenUpdate

    public init(zoneID: RecordZoneID, update: TokenUpdate) {
        self.zoneID = zoneID
        self.update = update
    }
}

/// A zone to forget locally. Its token and known-zone entry always go.
public struct ZoneRemoval: Sendable, Hashable {
    public var zoneID: RecordZoneID
    /// Delete the zone's cached records.
    public var removeRecords: Bool
    /// Drop every pending change in the zone.
    public var removePendingChanges: Bool

    public init(zoneID: RecordZoneID, removeRecords: Bool = true, removePendingChanges: Bool = true) {
        self.zoneID = zoneID
        self.removeRecords = removeRecords
        self.removePendingChanges = removePendingChanges
    }
}

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
