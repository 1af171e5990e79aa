import SyncCore
import SyncInspector
import SyncSimulation
import SyncWorlds

extension InProcessServerObserver {
    /// `ServerObserver.answer(_:zone:user:environment:)` without suspending.
    public func answerNow(_ read: RecordRowsRead, zone: ZoneKey, user: String, environment: ContainerEnvironment) -> RecordRowsServerAnswer {
        switch read {
        case .everything:
            return .everything(recordsAtPositionNow(in: zone.zoneID, scope: zone.scope, user: user, environment: environment))
        case .changes(let since, let deviceSince):
            let server: ZoneRecordChanges
            switch recordChangesNow(in: zone.zoneID, scope: zone.scope, user: user, environment: environment, since: since) {
            case .success(let changes): server = changes
            case .failure(let error): return .refused(error)
            }
            guard let deviceSince else { return .changes(server: server, device: nil) }
            switch recordChangesNow(in: zone.zoneID, scope: zone.scope, user: user, environment: environment, since: deviceSince) {
            case .success(let changes): return .changes(server: server, device: changes)
            case .failure(let error): return .refused(error)
            }
        }
    }
}
