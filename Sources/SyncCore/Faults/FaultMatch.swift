import Foundation

/// Which calls a rule applies to; every field left `nil` (or empty) matches anything.
public struct FaultMatch: Sendable, Hashable {
    /// CloudKit Web Services operation names: `records/modify`,
    /// `records/lookup`, `zones/modify`, `zones/list`, `changes/database`,
    /// `changes/zone`, `subscriptions/modify`, `subscriptions/lookup`; and
    /// `push` for notifications. Empty: every operation the effect applies to.
    public var operations: [String]
    public var database: DatabaseScope?
    /// A zone name: the call touches this zone.
    public var zone: String?
    public var user: String?
    /// A device ID, or a device name (matches IDs ending in `-NAME`, as a simulation names them).
    public var device: String?

    public init(operations: [String] = [], database: DatabaseScope? = nil, zone: String? = nil, user: String? = nil, device: String? = nil) {
        self.operations = operations
        self.database = database
        self.zone = zone
        self.user = user
        self.device = device
    }

    public static let knownOperations = [
        "records/modify", "records/lookup", "zones/modify", "zones/list", "changes/database", "changes/zone",
        "subscriptions/modify", "subscriptions/lookup", "push",
    ]

    package func matches(_ call: FaultCall) -> Bool {
        if !operations.isEmpty && !operations.contains(call.operation) { return false }
        if let database, call.database != database { return false }
        if let zone, !call.zoneNames.contains(zone) { return false }
        if let user, call.user != user { return false }
        if let device {
            guard let id = call.deviceID, id == device || id.hasSuffix("-" + device) else { return false }
        }
        return true
    }

    public var description: String {
        var parts: [String] = []
        if !operations.isEmpty { parts.append(operations.joined(separator: ",")) }
        if let database { parts.append("database \(database.rawValue)") }
        if let zone { parts.append("zone \(zone)") }
        if let user { parts.append("user \(user)") }
        if let device { parts.append("device \(device)") }
        return parts.isEmpty ? "every call" : parts.joined(separator: ", ")
    }
}
