import SyncCore
import SyncInspector
import SyncSimulation
import SyncWorlds

extension InProcessServerObserver {
    /// `ServerObserver.answer(_:zone:user:)` without suspending.
    public func answerNow(_ read: RecordRowsRead, zone: ZoneKey, user: String) -> RecordRowsServerAnswer {
        switch read {
        case .everything:
            return .everything(recordsAtPositionNow(in: zone.zoneID, scope: zone.scope, user: user))
        case .changes(let since, let deviceSince):
            let server: ZoneRecordChanges
            switch recordChangesNow(in: zone.zoneID, scope: zone.scope, user: user, since: since) {
            case .success(let changes): server = changes
            case .failure(let error): return .refused(error)
            }
            guard let deviceSince else { return .changes(server: server, device: nil) }
            switch recordChangesNow(in: zone.zoneID, scope: zone.scope, user: user, since: deviceSince) {
            case .success(let changes): return .changes(server: server, device: changes)
            case .failure(let error): return .refused(error)
            }
        }
    }
}
