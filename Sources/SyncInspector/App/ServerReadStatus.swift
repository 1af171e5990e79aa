import SyncCore
import SyncClient

/// What the message line says about a server that could not be reached: a
/// failure stands while it lasts, and goes as soon as the server answers
/// again, so the line never keeps a stale "Cannot read the server" (or a
/// device's stale `networkFailure`) after recovery.
///
/// Two sources, one rule: the inspector's own reads of a server that is not
/// in process (``serverReadFailed(source:reason:)``), and a device's sync
/// errors (``syncFailed(_:)``); an answer from the server clears the line only
/// if it still shows that failure, never a newer message.
extension InspectorState {
    /// A read of the server failed: say why, and remember that it did.
    public mutating func serverReadFailed(source: String, reason: String) {
        let text = "Cannot read the server (\(source)): \(reason)"
        serverReadProblem = text
        message = InspectorMessage(text, kind: .error)
        needsRedraw = true
    }

    /// A read of the server worked. If the message line still shows the
    /// failure, it says the server answers again; a newer message (a key's
    /// outcome) is left alone.
    public mutating func serverReadSucceeded(source: String) {
        guard let problem = serverReadProblem else { return }
        serverReadProblem = nil
        if message?.text == problem {
            message = InspectorMessage("The server answers again (\(source)): the panes show what it holds now.", kind: .success)
            needsRedraw = true
        }
    }

    /// A device's sync reported an error: show it, and remember whose it is.
    public mutating func syncFailed(_ error: InspectorMessage, device: String) {
        syncProblem = SyncProblem(device: device, text: error.text)
        message = error
        needsRedraw = true
    }

    /// `device` heard from the server (a fetch or a send worked): its sync
    /// error, if still on the message line, is stale, and the line says so.
    /// Another device's answer proves nothing for it (a fault may aim at one device).
    public mutating func syncRecovered(device: String, what: String) {
        guard let problem = syncProblem, problem.device == device else { return }
        syncProblem = nil
        if message?.text == problem.text {
            message = InspectorMessage("\(device): \(what) worked: the server answers again.", kind: .success)
            needsRedraw = true
        }
    }

    /// What a sync event proves the server answered, in a few words; `nil`
    /// for events that do not (local steps, errors, retries).
    static func serverAnswer(_ event: SyncEvent) -> String? {
        switch event {
        case .fetchCompleted(let scope): "the fetch of the \(scope.rawValue) database"
        case .fetchRunFinished(let run) where run.succeeded == true: "fetch run #\(run.id)"
        case .changesSent(_, let zoneID, _, _): "sending to \(zoneID.zoneName)"
        case .zonesSent: "sending zones"
        default: nil
        }
    }
}

/// A device's sync error on the message line (see ``InspectorState/syncFailed(_:device:)``).
public struct SyncProblem: Hashable, Sendable {
    public var device: String
    public var text: String
}
