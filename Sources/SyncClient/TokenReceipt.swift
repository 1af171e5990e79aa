import SyncCore

/// A change token a device received and cached, for the inspector's
/// per-device token history.
public struct TokenReceipt: Sendable, Hashable {
    /// The device that received it.
    public var deviceID: String?
    public var kind: ChangeTokenKind
    public var scope: DatabaseScope
    /// The zone, for zone tokens.
    public var zoneID: RecordZoneID?
    public var token: ServerChangeToken
    /// `changes/database` or `changes/zone`.
    public var operation: String
    /// 0 for the first batch of this fetch of the database or zone.
    public var batchIndex: Int
    public var moreComing: Bool
    /// How many zone entries (database token) or record changes (zone token) the batch carried.
    public var changeCount: Int
    /// When it was received (simulation clock, ms since 1970).
    public var time: Milliseconds

    public init(
        deviceID: String?, kind: ChangeTokenKind, scope: DatabaseScope, zoneID: RecordZoneID?, token: ServerChangeToken,
        operation: String, batchIndex: Int, moreComing: Bool, changeCount: Int, time: Milliseconds
    ) {
        self.deviceID = deviceID
        self.kind = kind
        self.scope = scope
        self.zoneID = zoneID
        self.token = token
        self.operation = operation
        self.batchIndex = batchIndex
        self.moreComing = moreComing
        self.changeCount = changeCount
        self.time = time
    }
}
