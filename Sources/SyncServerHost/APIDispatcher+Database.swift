import Foundation
import SyncCore
import SyncWire
import SyncServer

/// The handlers of `/database/1/{container}/{environment}/{database}/{operation}`
/// (``WebServicesRoute/table``): the path's arguments already read and the
/// method checked.
extension APIDispatcher {
    package func listZones(_ call: APICall, _ arguments: RouteArguments) throws(CloudError) -> APIAnswer {
        let db = arguments.database
        let listing = try core.engine.listRecordZones(caller: try Self.publicOrSignedIn(call, arguments, "Listing zones"), database: db)
        return try encode(WireZonesResponse(zones: listing.map { .success(WireZone(zoneID: WireZoneID($0.zoneID), syncToken: $0.syncToken)) }))
    }

    package func lookupZones(_ call: APICall, _ arguments: RouteArguments) throws(CloudError) -> APIAnswer {
        let db = arguments.database
        let isPublic = db.scope == .public
        let request = try decode(WireZonesLookupRequest.self, call)
        let who = try Self.publicOrSignedIn(call, arguments, "Looking up zones")
        let listing = try core.engine.listRecordZones(caller: who, database: db)
        let results: [WireResult<WireZone>] = request.zones.map { wanted in
            var id = RecordZoneID(wanted.zoneID)
            if id.ownerName.isEmpty || id.ownerName == RecordZoneID.currentUserName { id.ownerName = isPublic ? RecordZoneID.publicOwnerName : who.user }
            if let found = listing.first(where: { $0.zoneID == id }) {
                return .success(WireZone(zoneID: WireZoneID(found.zoneID), syncToken: found.syncToken))
            }
            return .failure(WireError(CloudError(.zoneNotFound, "Zone '\(id.zoneName)' does not exist in this database.", zoneID: id)))
        }
        return try encode(WireZonesResponse(zones: results))
    }

    package func modifyZones(_ call: APICall, _ arguments: RouteArguments) throws(CloudError) -> APIAnswer {
        let request = try decode(WireZonesModifyRequest.self, call)
        try checkCount(request.operations.count, "zone operations")
        var saving: [(Int, RecordZoneID)] = []
        var deleting: [(Int, RecordZoneID)] = []
        for (index, operation) in request.operations.enumerated() {
            let id = RecordZoneID(operation.zone.zoneID)
            switch operation.operationType {
            case "create": saving.append((index, id))
            case "delete": deleting.append((index, id))
            default:
                throw CloudError(.invalidArguments, "operations[\(index)].operationType is '\(operation.operationType)'; zones/modify knows create and delete.")
            }
        }
        let results = try core.engine.modifyRecordZones(
            caller: try requireUser(call, "Changing zones"), database: arguments.database, saving: saving.map(\.1), deleting: deleting.map(\.1))
        var ordered = [WireResult<WireZone>?](repeating: nil, count: request.operations.count)
        for (slot, result) in zip(saving.map(\.0) + deleting.map(\.0), results) {
            switch result {
            case .success(let zone):
                let deleted = deleting.contains { $0.0 == slot }
                ordered[slot] = .success(WireZone(zoneID: WireZoneID(zone.zoneID), deleted: deleted ? true : nil))
            case .failure(let error): ordered[slot] = .failure(WireError(error))
            }
        }
        let changed = results.contains { if case .success = $0 { true } else { false } }
        var answer = try encode(WireZonesResponse(zones: ordered.compactMap { $0 }), changed: changed)
        answer.changes = ordered.compactMap { item in
            guard case .success(let zone)? = item else { return nil }
            return CallChange(zone.deleted == true ? .zoneDeleted : .zoneCreated, zone: zone.zoneID.zoneName)
        }
        return answer
    }

    package func shareZone(_ call: APICall, _ arguments: RouteArguments) throws(CloudError) -> APIAnswer {
        let db = arguments.database
        let request = try decode(WireZoneShareRequest.self, call)
        guard db.scope == .private else {
            throw CloudError(.invalidArguments, "zones/share works in the private database, where the owner's zones are; this call names '\(db.scope.rawValue)'.")
        }
        let revoke: Bool
        switch request.operationType {
        case "share": revoke = false
        case "revoke": revoke = true
        default: throw CloudError(.invalidArguments, "operationType is '\(request.operationType)'; zones/share knows share and revoke.")
        }
        let who = try requireUser(call, "Sharing a zone")
        let participants = try core.engine.shareRecordZone(
            caller: who, database: db, zoneID: RecordZoneID(request.zoneID), participants: request.participants, revoke: revoke)
        var zoneID = RecordZoneID(request.zoneID)
        if zoneID.ownerName.isEmpty || zoneID.ownerName == RecordZoneID.currentUserName { zoneID.ownerName = who.user }
        return try encode(WireZoneShareResponse(zoneID: WireZoneID(zoneID), participants: participants), changed: true)
    }

    package func databaseChanges(_ call: APICall, _ arguments: RouteArguments) throws(CloudError) -> APIAnswer {
        let request = try decode(WireDatabaseChangesRequest.self, call)
        let batch = try core.engine.fetchDatabaseChanges(
            caller: try requireUser(call, "Fetching database changes"), database: arguments.database, since: request.syncToken,
            resultsLimit: request.resultsLimit)
        return try encode(WireDatabaseChanges(batch), tokenIn: request.syncToken, tokenOut: batch.serverChangeToken)
    }

    /// `subscriptions/list` (every one of the caller's) and `subscriptions/lookup` (those the body names).
    package func subscriptions(_ call: APICall, _ arguments: RouteArguments, lookingUp: Bool) throws(CloudError) -> APIAnswer {
        let who = try requireUser(call, "Reading subscriptions")
        try core.engine.checkCaller(who)
        var ids: [String]?
        if lookingUp {
            let request = try decode(WireSubscriptionsLookupRequest.self, call)
            try checkCount(request.subscriptions.count, "subscriptions to look up")
            ids = request.subscriptions.map(\.subscriptionID)
        }
        let results = core.push.fetchSubscriptions(user: who.user, database: arguments.database, subscriptionIDs: ids)
        return try encode(WireSubscriptionsResponse(subscriptions: results.map { result in
            switch result {
            case .success(let subscription): .success(WireSubscription(subscription))
            case .failure(let error): .failure(WireError(error))
            }
        }))
    }
}
