import SyncCore
import SyncWorlds

/// What an event is about, for the event log's filter (`K` cycles it).
public enum EventCategory: String, CaseIterable, Hashable, Sendable {
    /// Fetches: tokens received, records applied, fetch runs.
    case fetch
    /// Pushes: notifications created, coalesced, held, delivered.
    case push
    /// Saves: changes queued and sent, conflicts merged.
    case save
    /// Errors, retries, expired tokens and injected faults.
    case error
    /// A device going offline or coming back.
    case online
    /// What a person, a scenario or the writer did.
    case action

    /// "fetches", for the pane's title.
    public var plural: String {
        switch self {
        case .fetch: "fetches"
        case .push: "pushes"
        case .save: "saves"
        case .error: "errors and faults"
        case .online: "offline/online"
        case .action: "actions"
        }
    }

    public static func of(_ event: WorldEvent) -> EventCategory {
        switch event.kind {
        case .push, .delivered, .pushReceived: return .push
        case .action: return .action
        case .failed, .fault: return .error
        case .connectivity: return .online
        case .sync(let sync):
            switch sync {
            case .fetchStarted, .tokenReceived, .recordsApplied, .zoneDeleted, .zonePurged, .zoneEncryptedDataReset,
                 .vanishedRecordsRemoved, .fetchCompleted, .fetchInterrupted, .fetchScheduled, .fetchRunStarted, .fetchRunFinished:
                return .fetch
            case .changeQueued, .zonesSent, .changesSent, .conflictMerged, .pendingChangeDropped, .ambiguousCommitResolved:
                return .save
            case .error, .retryScheduled, .tokenExpired:
                return .error
            case .notificationReceived:
                return .push
            }
        }
    }
}
