import SyncCore

extension ServerObserver {
    /// The records saved and deleted in `zoneID` since `position` (every page
    /// of `changes/zone` from that token: the in-process engine's change log,
    /// or the HTTP API), or the error a fetch from `position` gets: expired
    /// after a compaction, refused after a reset, the zone gone. The caller
    /// then reads everything again (``recordsAtPosition(in:scope:user:environment:)``).
    public func recordChanges(
        in zoneID: RecordZoneID, scope: DatabaseScope, user: String, environment: ContainerEnvironment, since position: ServerChangeToken
    ) async throws -> Result<ZoneRecordChanges, CloudError> {
        var changes: [RecordChange] = []
        var from = position
        while true {
            switch try await rewind(
                from: from, zoneID: zoneID, scope: scope, user: user, environment: environment, resultsLimit: ZoneRecordChanges.pageSize) {
            case .success(.zone(let batch)):
                changes += batch.changes
                from = batch.serverChangeToken
                if !batch.moreComing { return .success(ZoneRecordChanges(changes: changes, position: from)) }
            case .success(.database):
                return .failure(CloudError(.internalError, "The server answered a zone-changes read with database changes.", zoneID: zoneID))
            case .failure(let error):
                return .failure(error)
            }
        }
    }

    /// The live records of `zoneID` and a position later reads continue
    /// from. The position is read first: a change that lands between the two
    /// reads is in the records and again in the next changes, and applying a
    /// change twice leaves the same rows.
    public func recordsAtPosition(
        in zoneID: RecordZoneID, scope: DatabaseScope, user: String, environment: ContainerEnvironment
    ) async throws -> ZoneRecordsAtPosition {
        var position: ServerChangeToken?
        if scope != .public && !zoneID.isDefaultZone {
            position = try await zoneSummaries(user: user, environment: environment).first { $0.scope == scope && $0.zoneID == zoneID }?.currentToken
        }
        return ZoneRecordsAtPosition(
            records: try await records(in: zoneID, scope: scope, user: user, environment: environment), position: position)
    }
}
