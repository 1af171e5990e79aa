

/// A push notification of any of the three kinds (`CKNotification`).
public enum CloudNotification: Sendable, Hashable, CustomStringConvertible {
    case database(DatabaseNotification)
    case recordZone(RecordZoneNotification)
    case query(QueryNotification)

    /// The largest payload a push may carry, in bytes (as APNs).
    public static let payloadLimit = 4096

    public var notificationType: NotificationType {
        switch self {
        case .database: .database
        case .recordZone: .recordZone
        case .query: .query
        }
    }

    public var notificationID: String {
        get {
            switch self {
            case .database(let n): n.notificationID
            case .recordZone(let n): n.notificationID
            case .query(let n): n.notificationID
            }
        }
        set {
            switch self {
            case .database(var n): n.notificationID = newValue; self = .database(n)
            case .recordZone(var n): n.notificationID = newValue; self = .recordZone(n)
            case .query(var n): n.notificationID = newValue; self = .query(n)
            }
        }
    }

    public var subscriptionID: String {
        switch self {
        case .database(let n): n.subscriptionID
        case .recordZone(let n): n.subscriptionID
        case .query(let n): n.subscriptionID
        }
    }

    public var containerIdentifier: String {
        switch self {
        case .database(let n): n.containerIdentifier
        case .recordZone(let n): n.containerIdentifier
        case .query(let n): n.containerIdentifier
        }
    }

    public var databaseScope: DatabaseScope {
        switch self {
        case .database(let n): n.databaseScope
        case .recordZone(let n): n.databaseScope
        case .query(let n): n.databaseScope
        }
    }

    public var alertBody: String? {
        get {
            switch self {
            case .database(let n): n.alertBody
            case .recordZone(let n): n.alertBody
            case .query(let n): n.alertBody
            }
        }
        set {
            switch self {
            case .database(var n): n.alertBody = newValue; self = .database(n)
            case .recordZone(var n): n.alertBody = newValue; self = .recordZone(n)
            case .query(var n): n.alertBody = newValue; self = .query(n)
            }
        }
    }

    public var isPruned: Bool {
        get {
            switch self {
            case .database(let n): n.isPruned
            case .recordZone(let n): n.isPruned
            case .query(let n): n.isPruned
            }
        }
        set {
            switch self {
            case .database(var n): n.isPruned = newValue; self = .database(n)
            case .recordZone(var n): n.isPruned = newValue; self = .recordZone(n)
            case .query(var n): n.isPruned = newValue; self = .query(n)
            }
        }
    }

    public var coalescedCount: Int {
        get {
            switch self {
            case .database(let n): n.coalescedCount
            case .recordZone(let n): n.coalescedCount
            case .query(let n): n.coalescedCount
            }
        }
        set {
            switch self {
            case .database(var n): n.coalescedCount = newValue; self = .database(n)
            case .recordZone(var n): n.coalescedCount = newValue; self = .recordZone(n)
            case .query(var n): n.coalescedCount = newValue; self = .query(n)
            }
        }
    }

    /// The zone the notification is about, if it names one.
    public var zoneID: RecordZoneID? {
        switch self {
        case .database: nil
        case .recordZone(let n): n.recordZoneID
        case .query(let n): n.recordID.zoneID
        }
    }

    /// The size of the notification's JSON payload, in bytes (close to, not
    /// exactly, what the HTTP layer writes): what the 4 KB limit applies to.
    public var payloadSize: Int {
        var size = 2
        func add(_ key: String, string: String) { size += key.utf8.count + 4 + string.utf8.count + 2 }
        func add(_ key: String, raw: Int) { size += key.utf8.count + 4 + raw }
        add("notificationID", string: notificationID)
        add("notificationType", string: notificationType.rawValue)
        add("subscriptionID", string: subscriptionID)
        add("containerIdentifier", string: containerIdentifier)
        add("databaseScope", string: databaseScope.rawValue)
        add("isPruned", raw: 5)
        add("coalescedCount", raw: String(coalescedCount).utf8.count)
        if let alertBody { add("alertBody", string: alertBody) }
        func addZone(_ zone: RecordZoneID) {
            add("zoneID", raw: 2 + "zoneName".utf8.count + zone.zoneName.utf8.count + "ownerRecordName".utf8.count + zone.ownerName.utf8.count + 12)
        }
        switch self {
        case .database: break
        case .recordZone(let n): addZone(n.recordZoneID)
        case .query(let n):
            addZone(n.recordID.zoneID)
            add("recordName", string: n.recordID.recordName)
            add("queryNotificationReason", string: n.queryNotificationReason.rawValue)
            if !n.recordFields.isEmpty {
                add("recordFields", raw: n.recordFields.reduce(2) { $0 + Self.fieldSize($1) + 1 })
            }
        }
        return size
    }

    /// One field as `"name": {"value": V, "type": "T"}`.
    static func fieldSize(_ field: Field) -> Int {
        field.name.utf8.count + 4 + "{\"value\":,\"type\":\"\"}".utf8.count + field.value.approximateSize + field.value.typeName.utf8.count
    }

    /// What ``prune(toFit:)`` dropped.
    public struct PruneReport: Sendable, Hashable {
        public var droppedFields: [String]
        public var droppedAlertBody: Bool
        public var sizeBefore: Int
        public var sizeAfter: Int
    }

    /// Drops record fields (largest first), then the alert text, until the
    /// payload fits in `limit` bytes, and marks the notification pruned.
    /// Returns `nil` when it already fit.
    public mutating func prune(toFit limit: Int = CloudNotification.payloadLimit) -> PruneReport? {
        let before = payloadSize
        guard before > limit else { return nil }
        var dropped: [String] = []
        var droppedAlert = false
        isPruned = true
        if case .query(var n) = self {
            let bySize = n.recordFields.sorted { a, b in
                let (sa, sb) = (Self.fieldSize(a), Self.fieldSize(b))
                return sa != sb ? sa > sb : a.name < b.name
            }
            for field in bySize {
                if payloadSize <= limit { break }
                n.recordFields[field.name] = nil
                dropped.append(field.name)
                self = .query(n)
            }
        }
        if payloadSize > limit, alertBody != nil {
            alertBody = nil
            droppedAlert = true
        }
        return PruneReport(droppedFields: dropped, droppedAlertBody: droppedAlert, sizeBefore: before, sizeAfter: payloadSize)
    }

    public var description: String {
        let count = coalescedCount > 1 ? " ×\(coalescedCount)" : ""
        let pruned = isPruned ? " (pruned)" : ""
        switch self {
        case .database(let n):
            return "database notification \(n.notificationID) for \(n.subscriptionID) in \(n.databaseScope.rawValue)\(count)\(pruned)"
        case .recordZone(let n):
            return "zone notification \(n.notificationID) for \(n.subscriptionID): \(n.recordZoneID) in \(n.databaseScope.rawValue)\(count)\(pruned)"
        case .query(let n):
            return "query notification \(n.notificationID) for \(n.subscriptionID): \(n.queryNotificationReason.rawValue) \(n.recordID.recordName) in \(n.recordID.zoneID)\(count)\(pruned)"
        }
    }
}
