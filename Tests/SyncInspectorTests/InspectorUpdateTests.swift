import SyncCore
import Testing
@testable import SyncInspector

/// The update step on its own: hand-built command outcomes in, the state and
/// its message line out; no terminal, no world.
@Suite("Inspector update step")
struct InspectorUpdateTests {
    func state(withSyncProblemOn device: String? = nil) -> InspectorState {
        var state = InspectorState(clock: ClockStatus(now: 0, isPaused: true, speed: 1), screenSize: Size(width: 80, height: 24))
        if let device {
            state.syncFailed(InspectorMessage("\(device): fetch failed: networkFailure", kind: .error), device: device)
        }
        state.needsRedraw = false
        return state
    }

    @Test func aDoneActionSaysWhatItDidAndClearsAnEarlierSyncError() {
        var state = state(withSyncProblemOn: "iPhone")
        InspectorUpdate.apply(
            CommandOutcome(device: "iPhone", action: "fetch", result: .done(success: "iPhone fetched: 1 token received.", notable: nil, recovered: false)),
            to: &state)
        #expect(state.message == InspectorMessage("iPhone fetched: 1 token received.", kind: .success))
        #expect(state.syncProblem == nil)
        #expect(state.needsRedraw)
    }

    @Test func aRetryThatWorkedIsSaid() {
        var state = state()
        InspectorUpdate.apply(
            CommandOutcome(device: "iPhone", action: "sync", result: .done(success: "iPhone sent its changes and fetched.", notable: nil, recovered: true)),
            to: &state)
        #expect(state.message?.text == "iPhone sent its changes and fetched. (A first attempt failed; a retry worked.)")
    }

    @Test func aSyncErrorDuringTheActionStaysAsTheDevicesProblem() {
        var state = state()
        let error = InspectorMessage("iPhone: fetchZoneChanges failed: zoneBusy", kind: .error)
        InspectorUpdate.apply(
            CommandOutcome(device: "iPhone", action: "fetch", result: .done(success: "iPhone fetched.", notable: error, recovered: false)),
            to: &state)
        #expect(state.message == error)
        #expect(state.syncProblem?.device == "iPhone")
    }

    @Test func aWarningDuringTheActionIsSaidInsteadOfTheSuccess() {
        var state = state(withSyncProblemOn: "iPhone")
        let warning = InspectorMessage("iPhone: changeTokenExpired: it fetches again from no token.", kind: .warning)
        InspectorUpdate.apply(
            CommandOutcome(device: "iPhone", action: "fetch", result: .done(success: "iPhone fetched.", notable: warning, recovered: false)),
            to: &state)
        #expect(state.message == warning)
        #expect(state.syncProblem == nil)
    }

    @Test func aPassingFailureStaysUntilTheServerAnswers() {
        var state = state()
        InspectorUpdate.apply(
            CommandOutcome(device: "Mac", action: "fetch", result: .failed(CloudError(.networkFailure, "Cannot reach the server."))),
            to: &state)
        #expect(state.message == InspectorMessage("Mac: fetch failed: networkFailure (NETWORK_FAILURE): Cannot reach the server.", kind: .error)
            || state.message?.text.hasPrefix("Mac: fetch failed: networkFailure (") == true)
        #expect(state.message?.kind == .error)
        #expect(state.syncProblem?.device == "Mac")
        // The server answers again: the stale error goes.
        state.syncRecovered(device: "Mac", what: "a fetch")
        #expect(state.syncProblem == nil)
        #expect(state.message?.kind == .success)
    }

    @Test func aRefusalIsAnErrorThatDoesNotStay() {
        var state = state(withSyncProblemOn: "Mac")
        InspectorUpdate.apply(
            CommandOutcome(device: "Mac", action: "save note-1", result: .failed(CloudError(.invalidArguments, "The record name is empty."))),
            to: &state)
        #expect(state.message?.text.hasPrefix("Mac: save note-1 failed: invalidArguments (") == true)
        #expect(state.message?.text.hasSuffix("The record name is empty.") == true)
        #expect(state.syncProblem == nil)
    }

    @Test func anActionNotRunSaysWhy() {
        var state = state()
        let why = InspectorMessage("iPad is offline: that needs the network. Press o to bring it back online.", kind: .warning)
        InspectorUpdate.apply(CommandOutcome(device: "iPad", action: "fetch", result: .refused(why)), to: &state)
        #expect(state.message == why)
        #expect(state.needsRedraw)
    }

    @Test func aBusyWorldSaysTheKeyWaits() {
        var state = state()
        InspectorUpdate.queued("sync", behind: "fetch", state: &state)
        #expect(state.message?.text == "Busy with fetch: sync runs after it (keys still work; q quits).")
        InspectorUpdate.started("fetch", device: "iPhone", queued: 1, state: &state)
        #expect(state.message?.text == "iPhone: fetch… working (the other keys still work). 1 more waiting.")
    }
}
