import SyncCore
import SyncClient
import SyncScenario

/// Why a scenario run stopped being right: a check that did not hold, or a
/// step that failed when no `error` check expected it.
public struct ScenarioFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// Where the file writes the step (for a check: the check's name).
    public var location: SourceLocation
    /// The step's name as the file writes it (`fetch`, `lastFetch`, …).
    public var stepName: String
    /// What differed, or what went wrong.
    public var message: String

    public init(location: SourceLocation, stepName: String, message: String) {
        self.location = location
        self.stepName = stepName
        self.message = message
    }

    /// `lesson.yaml:12:5: error: lastFetch failed: records: expected …, got …`.
    public var description: String {
        "\(location): error: \(stepName) failed: \(message)"
    }
}

/// What one ``ScenarioRunner/runNextStep()`` did.
public struct StepOutcome: Sendable {
    public enum Status: Sendable, Hashable {
        /// The step ran (an action, or a check that held).
        case completed
        /// A check did not hold, or the step failed unexpectedly.
        case failed(ScenarioFailure)
        /// There was no step left to run.
        case endOfScenario
    }

    /// The step's position in ``Scenario/steps`` (`steps.count` at the end).
    public var index: Int
    /// `nil` at the end of the scenario.
    public var step: Step?
    public var status: Status
    /// What happened during the step, in order (the step's header first).
    public var events: [TranscriptEvent]
    /// The error the step ended with, expected or not (`nil`: it succeeded).
    public var error: CloudError?

    public var failure: ScenarioFailure? {
        if case .failed(let failure) = status { return failure }
        return nil
    }

    public var isEndOfScenario: Bool { status == .endOfScenario }
}

/// The answer to one fetch (all its batches together), as checks see it.
public struct FetchSummary: Sendable, Hashable {
    public var device: String
    /// Changed records, in the order the server sent them.
    public var records: [Record] = []
    public var deletions: [DeletedRecord] = []
    /// Database changes: zones reported changed, in order.
    public var zones: [RecordZoneID] = []
    /// Database changes: zones reported removed, in order.
    public var deletedZones: [RemovedZone] = []
    /// `moreComing` of the last batch.
    public var moreComing = false
    public var batches = 0
    /// The device's cached tokens differ from those before the fetch.
    public var tokenChanged = false

    public init(device: String) {
        self.device = device
    }
}

/// A zone a database-changes answer reported removed, and why.
public struct RemovedZone: Sendable, Hashable {
    public var zoneID: RecordZoneID
    public var reason: ZoneDeletionReason

    public init(zoneID: RecordZoneID, reason: ZoneDeletionReason) {
        self.zoneID = zoneID
        self.reason = reason
    }
}

/// What one send (or the send part of a sync or burst) did, as checks see it.
public struct SendSummary: Sendable, Hashable {
    public var device: String
    /// Record names the server saved, in the order they were sent.
    public var saved: [String] = []
    public var deleted: [String] = []
    /// Records whose save met a newer server record (`serverRecordChanged`).
    public var conflicts: [String] = []

    public init(device: String) {
        self.device = device
    }
}

/// What kind of step a transcript's step event begins.
public enum StepCategory: String, Sendable, Hashable {
    /// It does something.
    case action
    /// `say`.
    case narrative
    /// `expect`.
    case check
}

/// One line of a run's transcript: something a step did or saw.
public struct TranscriptEvent: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        /// The run begins.
        case scenario(name: String, title: String?, seed: UInt64, file: String)
        /// A step begins.
        case step(index: Int, name: String, location: SourceLocation, summary: String, category: StepCategory)
        /// Narrative.
        case say(String)
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
