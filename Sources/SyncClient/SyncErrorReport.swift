import SyncCore

/// An error a sync step ran into and how it was handled.
public struct SyncErrorReport: Sendable, Hashable {
    /// The step: `changes/database`, `changes/zone`, `zones/modify`, `records/modify`, `store`.
    public var operation: String
    public var scope: DatabaseScope?
    public var zoneID: RecordZoneID?
    public var recordID: RecordID?
    /// The server's error code, when it was a server error.
    public var code: CloudError.Code?
    public var message: String

    public init(operation: String, scope: DatabaseScope?, zoneID: RecordZoneID? = nil, recordID: RecordID? = nil, error: any Error) {
        self.operation = operation
        self.scope = scope
        self.zoneID = zoneID
        self.recordID = recordID
        if let cloud = error as? CloudError {
            code = cloud.code
            message = cloud.reason
        } else {
            code = nil
            message = String(describing: error)
        }
    }
}
