import Foundation
import SyncCore

extension CKSyncEngine {
    /// One fetch: the database's changes, then each changed zone's, as events.
    func fetch(_ requested: FetchChangesOptions, reason: SyncReason) async throws(CKError) {
        let link = try await prepare()
        await emitStateUpdateIfChanged()
        var context = FetchChangesContext(reason: reason, options: requested)
        if let delegate {
            context = FetchChangesContext(reason: reason, options: await delegate.nextFetchChangesOptions(context, syncEngine: self))
        }
        await deliver(.willFetchChanges(Event.WillFetchChanges(context: context)))
        try await fetchDatabaseChanges(link)

        var failure: CKError?
        for zoneID in zonesToFetch(context.options) {
            try checkCancelled()
            if let error = await fetchZoneChanges(zoneID, link), failure == nil, error.code != .zoneNotFound, error.code != .userDeletedZone {
                failure = error
            }
        }
        await deliver(.didFetchChanges(Event.DidFetchChanges(context: context)))
        await emitStateUpdateIfChanged()
        if let failure { throw failure }
    }

    /// The database's changes since the engine's token, page by page; a page's zones join the
    /// zones with unfetched changes. An expired token starts again from the beginning.
    private func fetchDatabaseChanges(_ link: DeviceLink) async throws(CKError) {
        var moreComing = true
        while moreComing {
            try checkCancelled()
            let token = state.read(\.databaseToken).map { CKServerChangeToken(ServerChangeToken(rawValue: $0)) }
            let page: CKDatabase.DatabaseChanges
            do {
                page = try await retrying { () async throws(CKError) in try await database.databaseChanges(since: token, resultsLimit: 0, via: link) }
            } catch where error.code == .changeTokenExpired && token != nil {
                state.update { $0.databaseToken = nil }
                continue
            }
            state.update { s in
                for modification in page.modifications {
                    let key = State.ZoneKey(modification.zoneID)
                    if !s.unfetchedZones.contains(key) { s.unfetchedZones.append(key) }
                }
                for deletion in page.deletions {
                    let key = State.ZoneKey(deletion.zoneID)
                    s.unfetchedZones.removeAll { $0 == key }
                    s.zoneTokens.removeAll { $0.zone == key }
                }
                s.databaseToken = page.changeToken.token.rawValue
            }
            if !page.modifications.isEmpty || !page.deletions.isEmpty {
                await deliver(.fetchedDatabaseChanges(Event.FetchedDatabaseChanges(modifications: page.modifications, deletions: page.deletions)))
            }
            await emitStateUpdate()
            moreComing = page.moreComing
        }
    }

    /// The zones with unfetched changes in the fetch's scope, its prioritized zones first.
    private func zonesToFetch(_ options: FetchChangesOptions) -> [CKRecordZone.ID] {
        let zones = state.zoneIDsWithUnfetchedServerChanges.filter(options.scope.contains)
        let first = options.prioritizedZoneIDs.filter(zones.contains)
        return first + zones.filter { !first.contains($0) }
    }

    /// One zone's changes since its token, page by page; the error that stopped it, if any.
    private func fetchZoneChanges(_ zoneID: CKRecordZone.ID, _ link: DeviceLink) async -> CKError? {
        await deliver(.willFetchRecordZoneChanges(Event.WillFetchRecordZoneChanges(zoneID: zoneID)))
        let key = State.ZoneKey(zoneID)
        var failure: CKError?
        var moreComing = true
        while moreComing {
            let token = state.read { s in s.zoneTokens.first { $0.zone == key }?.token }.map { CKServerChangeToken(ServerChangeToken(rawValue: $0)) }
            do {
                try checkCancelled()
                let page = try await retrying { () async throws(CKError) in
                    try await database.recordZoneChanges(inZoneWith: zoneID, since: token, desiredKeys: nil, resultsLimit: 0, via: link)
                }
                state.update { s in
                    s.zoneTokens.removeAll { $0.zone == key }
                    s.zoneTokens.append(State.ZoneToken(zone: key, token: page.changeToken.token.rawValue))
                }
                if !page.modifications.isEmpty || !page.deletions.isEmpty {
                    await deliver(.fetchedRecordZoneChanges(Event.FetchedRecordZoneChanges(modifications: page.modifications, deletions: page.deletions)))
                }
                await emitStateUpdate()
                moreComing = page.moreComing
            } catch where error.code == .changeTokenExpired && token != nil {
                // The zone's history since the token is gone (it was deleted and made again, or
                // compacted): what the app holds of it may include records deleted since. Tell
                // the app the zone it knew is gone, then fetch the zone from the beginning.
                state.update { s in s.zoneTokens.removeAll { $0.zone == key } }
                let gone = CKDatabase.DatabaseChange.Deletion(zoneID: zoneID, reason: .deleted)
                await deliver(.fetchedDatabaseChanges(Event.FetchedDatabaseChanges(modifications: [], deletions: [gone])))
                await emitStateUpdate()
            } catch {
                failure = error
                moreComing = false
            }
        }
        let gone = failure?.code == .zoneNotFound || failure?.code == .userDeletedZone
        if failure == nil || gone {
            state.update { s in
                s.unfetchedZones.removeAll { $0 == key }
                if gone { s.zoneTokens.removeAll { $0.zone == key } }
            }
            if gone { await emitStateUpdate() }
        }
        await deliver(.didFetchRecordZoneChanges(Event.DidFetchRecordZoneChanges(zoneID: zoneID, error: failure)))
        return failure
    }
}
