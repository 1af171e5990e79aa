import SyncCore

/// A zone's live records and the position they stand at, for a full read
/// that later reads continue from with ``ServerObserver/recordChanges(in:scope:user:environment:since:)``.
public struct ZoneRecordsAtPosition: Sendable, Hashable {
    public var records: [Record]
    /// `nil` for a zone without change fetching (the default and public zones).
    public var position: ServerChangeToken?

    public init(records: [Record], position: ServerChangeToken?) {
        self.records = records
        self.position = position
    }
}
