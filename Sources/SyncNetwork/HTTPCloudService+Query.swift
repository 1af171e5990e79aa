import Foundation
import SyncCore
import SyncWire

extension HTTPCloudService {
    /// `records/query`: one page of the records of a type that match a query.
    /// With `currentSyncToken`, the answer carries the zone's current token
    /// (`getCurrentSyncToken=true`).
    public func queryRecords(in scope: DatabaseScope, _ request: QueryRequest, currentSyncToken: Bool = false) async throws -> QueryResult {
        let query = request.query
        let wire = WireRecordsQueryRequest(
            query: WireQuery(
                recordType: query.recordType,
                filterBy: query.predicate.filters.isEmpty ? nil : query.predicate.filters.map {
                    WireQueryFilter(comparator: $0.comparator.rawValue, fieldName: $0.fieldName, fieldValue: WireField($0.fieldValue))
                },
                sortBy: query.sortBy.isEmpty ? nil : query.sortBy.map { WireQuerySort(fieldName: $0.fieldName, ascending: $0.ascending) }),
            zoneID: request.zoneID.map(WireZoneID.init), zoneWide: request.zoneWide ? true : nil, resultsLimit: request.resultsLimit,
            continuationMarker: request.continuationMarker, desiredKeys: request.desiredKeys)
        let path = databasePath(scope, "records/query") + (currentSyncToken ? "?getCurrentSyncToken=true" : "")
        let answer: WireRecordsQueryResponse = try await send("POST", path, wire)
        let defaultZone = normalized(request.zoneID ?? RecordZoneID(zoneName: RecordZoneID.defaultZoneName, ownerName: ""), scope)
        var records: [Record] = []
        records.reserveCapacity(answer.records.count)
        for item in answer.records {
            switch item {
            case .success(let wire): records.append(try Record(wire, zoneID: wire.zoneID.map(RecordZoneID.init) ?? defaultZone))
            case .failure(let error): throw CloudError(error, zoneID: defaultZone)
            }
        }
        return QueryResult(records: records, continuationMarker: answer.continuationMarker, syncToken: answer.syncToken)
    }
}
