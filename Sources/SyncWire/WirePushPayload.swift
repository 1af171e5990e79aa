import SyncCore

/// A push notification in the form Apple's push service delivers it, and
/// Apple's web courier answers a long-poll with: `{"aps": {…}, "ck": {…}}`.
///
/// - `ck.nid`: the notification's ID; `ck.cid`: the container; `ck.ce`: the
///   environment (optional); `ck.p`: present when the payload was pruned;
///   `ck.ckuserid`: the subscription owner's user record name.
/// - Exactly one of `ck.fet` (a record-zone notification: `zid`, `zoid`,
///   `sid`, `dbs`), `ck.met` (a database notification: `sid`, `dbs`) and
///   `ck.qry` (a query notification: `sid`, `dbs`, `rid`, `zid`, `zoid`, `fo`,
///   `af`) says what kind it is.
/// - `dbs` is the database scope as a number: 1 public, 2 private, 3 shared.
///   `fo` is the query reason: 1 created, 2 updated, 3 deleted. `af` holds
///   the subscription's desired fields as plain JSON values.
///
/// What Apple's form has no place for rides along under `syncscope`, a key no
/// Apple client reads: how many notifications this one stands for, the
/// notification type spelled out, the record fields with their types, and
/// when the server queued it (for the receiver's push latency).
public struct WirePushPayload: Codable, Sendable, Hashable {
    public struct APS: Codable, Sendable, Hashable {
        public var alert: String?
        public var contentAvailable: Int?

        enum CodingKeys: String, CodingKey {
            case alert
            case contentAvailable = "content-available"
        }

        public init(alert: String? = nil, contentAvailable: Int? = nil) {
            self.alert = alert
            self.contentAvailable = contentAvailable
        }
    }

    /// `ck.fet`: a record zone changed.
    public struct ZoneInfo: Codable, Sendable, Hashable {
        public var zid: String
        public var zoid: String
        public var sid: String
        public var dbs: Int
    }

    /// `ck.met`: a database changed.
    public struct DatabaseInfo: Codable, Sendable, Hashable {
        public var sid: String
        public var dbs: Int
    }

    /// `ck.qry`: a record matching a query subscription changed.
    public struct QueryInfo: Codable, Sendable, Hashable {
        public var sid: String
        public var dbs: Int
        public var rid: String
        public var zid: String
        public var zoid: String
        public var fo: Int
        public var af: [String: JSONValue]?
    }

    public struct CK: Codable, Sendable, Hashable {
        public var nid: String
        public var cid: String
        public var ce: Int?
        public var p: Bool?
        public var ckuserid: String?
        public var fet: ZoneInfo?
        public var met: DatabaseInfo?
        public var qry: QueryInfo?
    }

    /// Ours, under `syncscope`.
    public struct Extras: Codable, Sendable, Hashable {
        public var notificationType: NotificationType
        public var coalescedCount: Int
        public var isPruned: Bool
        /// A query notification's fields with their types (`af` has the bare values).
        public var recordFields: [String: WireField]?
        /// When the server queued the notification: the commit time of the
        /// oldest change it stands for, in milliseconds since 1970 on the
        /// server's clock. A receiver's push latency is its arrival time minus this.
        public var queuedAt: Milliseconds?

        public init(
            notificationType: NotificationType, coalescedCount: Int, isPruned: Bool, recordFields: [String: WireField]? = nil,
            queuedAt: Milliseconds? = nil
        ) {
            self.notificationType = notificationType
            self.coalescedCount = coalescedCount
            self.isPruned = isPruned
            self.recordFields = recordFields
            self.queuedAt = queuedAt
        }
    }

    public var aps: APS
    public var ck: CK
    public var syncscope: Extras?

    public init(aps: APS, ck: CK, syncscope: Extras?) {
        self.aps = aps
        self.ck = ck
        self.syncscope = syncscope
    }

    /// `dbs`: CloudKit's numbering of database scopes.
    public static func number(_ scope: DatabaseScope) -> Int {
        switch scope {
        case .public: 1
        case .private: 2
        case .shared: 3
        }
    }

    public static func scope(_ number: Int) -> DatabaseScope? {
        switch number {
        case 1: .public
        case 2: .private
        case 3: .shared
        default: nil
        }
    }

    static func number(_ reason: QueryNotification.Reason) -> Int {
        switch reason {
        case .recordCreated: 1
        case .recordUpdated: 2
        case .recordDeleted: 3
        }
    }

    static func reason(_ number: Int) -> QueryNotification.Reason? {
        switch number {
        case 1: .recordCreated
        case 2: .recordUpdated
        case 3: .recordDeleted
        default: nil
        }
    }

    /// Apple's form of `notification`, sent to a device of `ownerRecordName`
    /// (the subscription's owner), queued by the server at `queuedAt`.
    public init(_ notification: CloudNotification, ownerRecordName: String? = nil, queuedAt: Milliseconds? = nil) {
        var ck = CK(
            nid: notification.notificationID, cid: notification.containerIdentifier, ce: nil, p: notification.isPruned ? true : nil,
            ckuserid: ownerRecordName)
        let dbs = Self.number(notification.databaseScope)
        var typedFields: [String: WireField]?
        switch notification {
        case .database(let n):
            ck.met = DatabaseInfo(sid: n.subscriptionID, dbs: dbs)
        case .recordZone(let n):
            ck.fet = ZoneInfo(zid: n.recordZoneID.zoneName, zoid: n.recordZoneID.ownerName, sid: n.subscriptionID, dbs: dbs)
        case .query(let n):
            var plain: [String: JSONValue] = [:]
            var typed: [String: WireField] = [:]
            for field in n.recordFields {
                let wire = WireField(field.value)
                typed[field.name] = wire
                plain[field.name] = wire.value ?? .null
            }
            typedFields = typed.isEmpty ? nil : typed
            ck.qry = QueryInfo(
                sid: n.subscriptionID, dbs: dbs, rid: n.recordID.recordName, zid: n.recordID.zoneID.zoneName,
                zoid: n.recordID.zoneID.ownerName, fo: Self.number(n.queryNotificationReason), af: plain.isEmpty ? nil : plain)
        }
        self.init(
            aps: APS(alert: notification.alertBody, contentAvailable: notification.alertBody == nil ? 1 : nil),
            ck: ck,
            syncscope: Extras(
                notificationType: notification.notificationType, coalescedCount: notification.coalescedCount, isPruned: notification.isPruned,
                recordFields: typedFields, queuedAt: queuedAt))
    }
}

extension CloudNotification {
    /// Reads Apple's push form back. Throws `invalidArguments` naming what
    /// is missing or malformed.
    public init(_ payload: WirePushPayload) throws(CloudError) {
        let ck = payload.ck
        let isPruned = ck.p == true || payload.syncscope?.isPruned == true
        let coalescedCount = payload.syncscope?.coalescedCount ?? 1
        func scope(_ dbs: Int) throws(CloudError) -> DatabaseScope {
            guard let scope = WirePushPayload.scope(dbs) else {
                throw CloudError(.invalidArguments, "The push's database scope 'dbs' is \(dbs); it is 1 (public), 2 (private) or 3 (shared).")
            }
            return scope
        }
        if let fet = ck.fet {
            self = .recordZone(RecordZoneNotification(
                notificationID: ck.nid, subscriptionID: fet.sid, containerIdentifier: ck.cid, databaseScope: try scope(fet.dbs),
                recordZoneID: RecordZoneID(zoneName: fet.zid, ownerName: fet.zoid), alertBody: payload.aps.alert, isPruned: isPruned,
                coalescedCount: coalescedCount))
        } else if let met = ck.met {
            self = .database(DatabaseNotification(
                notificationID: ck.nid, subscriptionID: met.sid, containerIdentifier: ck.cid, databaseScope: try scope(met.dbs),
                alertBody: payload.aps.alert, isPruned: isPruned, coalescedCount: coalescedCount))
        } else if let qry = ck.qry {
            guard let reason = WirePushPayload.reason(qry.fo) else {
                throw CloudError(.invalidArguments, "The push's query reason 'fo' is \(qry.fo); it is 1 (created), 2 (updated) or 3 (deleted).")
            }
            var fields = RecordFields()
            for (name, wire) in payload.syncscope?.recordFields ?? [:] {
                fields[name] = try wire.fieldValue(name: name, recordName: qry.rid)
            }
            self = .query(QueryNotification(
                notificationID: ck.nid, subscriptionID: qry.sid, containerIdentifier: ck.cid, databaseScope: try scope(qry.dbs),
                queryNotificationReason: reason,
                recordID: RecordID(recordName: qry.rid, zoneID: RecordZoneID(zoneName: qry.zid, ownerName: qry.zoid)),
                recordFields: fields, alertBody: payload.aps.alert, isPruned: isPruned, coalescedCount: coalescedCount))
        } else {
            throw CloudError(.invalidArguments, "The push has none of 'ck.fet' (zone), 'ck.met' (database) or 'ck.qry' (query).")
        }
    }
}
