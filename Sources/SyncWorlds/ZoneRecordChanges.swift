import SyncCore

/// The records saved and deleted in one zone since a position, and the
/// position the next read starts from.
///
/// A position is a zone change token: the observer reads `changes/zone` from
/// it, as a client would, so the answer costs as much as the changes since,
/// whatever the number of records the zone holds.
public struct ZoneRecordChanges: Sendable, Hashable {
    /// In the order the server listed them; a record appears at most once per
    /// page, and a later entry for the same name supersedes an earlier one.
    public var changes: [RecordChange]
    /// Changes through here are in `changes`: the next read starts here.
    public var position: ServerChangeToken

    public init(changes: [RecordChange], position: ServerChangeToken) {
        self.changes = changes
        self.position = position
    }
}

extension ZoneRecordChanges {
    /// Changes read per `changes/zone` page (CloudKit's usual limit).
    public static let pageSize = 400
}
