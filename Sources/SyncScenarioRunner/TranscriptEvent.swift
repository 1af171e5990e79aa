import SyncCore
import SyncClient
import SyncScenario

/// One line of a run's transcript: something a step did or saw.
public struct TranscriptEvent: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// The run begins.
        case scenario(name: String, title: String?, seed: UInt64, file: String)
        /// A step begins.
        case step(index: Int, name: String, location: SourceLocation, summary: String, category: StepCategory)
        /// Narrative.
        case say(String)
        /// A note for the presenter (`note:`): in a `--cast` recording, not in
        /// the transcript (``TranscriptFormatter/castText(_:)``) nor its JSON.
        case presenterNote(String)
        /// One `changes/database` batch a device received.
        case databaseChanges(device: String, scope: DatabaseScope, batch: Int, DatabaseChangesBatch)
        /// One `changes/zone` batch a device received.
        case zoneChanges(device: String, scope: DatabaseScope, batch: Int, ZoneChangesBatch)
        /// A push notification reached a device.
        case notification(device: String, CloudNotification)
        /// Records a device sent and the server saved or deleted.
        case recordsSent(device: String, scope: DatabaseScope, zoneID: RecordZoneID, saved: [String], deleted: [String])
        /// A save met a newer server record; `merged`: the device merged and sent again.
        case conflict(device: String, recordName: String, merged: Bool, keys: [String])
        /// Something else worth a line (a zone dropped, a token expired, a zone created…).
        case note(device: String?, String)
        /// The step ended with this error.
        case error(device: String?, CloudError, expected: Bool)
        /// A check held (`failure == nil`) or did not.
        case check(index: Int, name: String, location: SourceLocation, failure: String?)
        /// The run ended: checks that held, and the failure if any.
        case finished(checks: Int, failure: ScenarioFailure?)
    }

    /// Milliseconds of virtual time since the run began.
    public var time: Milliseconds
    public var kind: Kind

    public init(time: Milliseconds, kind: Kind) {
        self.time = time
        self.kind = kind
    }
}
