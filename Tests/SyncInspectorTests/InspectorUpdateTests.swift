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

    // MARK: Every other command's outcome

    func stateWithDevices() -> InspectorState {
        var state = state()
        state.snapshot.devices = ["iPhone", "Mac", "iPad"].map { name in
            DeviceSummary(name: name, user: "alice", deviceID: "alice-\(name)", isOnline: true, autoFetchOnPush: true, pendingChanges: 0, fetchRuns: 0)
        }
        return state
    }

    @Test func aLessonStepThatRanFollowsItsDeviceAndHighlightsWhatItChanged() {
        var state = stateWithDevices()
        InspectorUpdate.apply(
            .lesson(LessonOutcome(
                .ranStep(step: 2, summary: "fetch: Mac fetches", result: LessonStepResult()), stepCount: 8, stepDevice: "Mac",
                touched: [.tokens], isFinished: false, now: 10_000)),
            to: &state)
        #expect(state.message == InspectorMessage("Step 3 of 8 done: fetch: Mac fetches", kind: .success))
        #expect(state.focusedDevice == 1)
        #expect(state.lessonMode.highlighted == [.tokens])
        #expect(state.lessonMode.highlightUntil == 10_000 + LessonModeState.highlightDuration)
        #expect(!state.lessonMode.showsSummary)
        #expect(state.needsRedraw)
    }

    @Test func aLessonStepSaysAFailedCheckAnExpectedErrorOrItsNarrative() {
        var state = stateWithDevices()
        InspectorUpdate.apply(
            .lesson(LessonOutcome(
                .ranStep(step: 0, summary: "expect", result: LessonStepResult(failedStep: "tokens match", failureMessage: "Mac has none")),
                stepCount: 3)),
            to: &state)
        #expect(state.message == InspectorMessage("Step 1: tokens match did not hold: Mac has none", kind: .error))

        let expired = CloudError(.changeTokenExpired, "The token expired.")
        InspectorUpdate.apply(
            .lesson(LessonOutcome(.ranStep(step: 1, summary: "fetch", result: LessonStepResult(error: expired)), stepCount: 3)), to: &state)
        #expect(state.message?.kind == .warning)
        #expect(state.message?.text.hasPrefix("Step 2 (fetch) ended with changeTokenExpired (") == true)
        #expect(state.message?.text.hasSuffix("as the lesson expects: The token expired.") == true)

        InspectorUpdate.apply(
            .lesson(LessonOutcome(.ranStep(step: 2, summary: "say", result: LessonStepResult(isNarrative: true)), stepCount: 3)), to: &state)
        #expect(state.message == InspectorMessage("Step 3 of 3: read the lesson pane, then Enter."))
        #expect(state.focusedDevice == 0, "a step without a device leaves the focus where it was")
    }

    @Test func theLastStepOffersTheSummaryAndAPinnedFocusStays() {
        var state = stateWithDevices()
        state.lessonMode.followsSteps = false
        InspectorUpdate.apply(
            .lesson(LessonOutcome(
                .ranStep(step: 7, summary: "sync", result: LessonStepResult()), stepCount: 8, stepDevice: "iPad", isFinished: true)),
            to: &state)
        #expect(state.lessonMode.showsSummary)
        #expect(state.focusedDevice == 0)
    }

    @Test func aRestartOrAJumpSaysWhereTheLessonStands() {
        var state = stateWithDevices()
        state.lessonMode.showsSummary = true
        InspectorUpdate.apply(.lesson(LessonOutcome(.restarted, stepCount: 8)), to: &state)
        #expect(!state.lessonMode.showsSummary)
        #expect(state.message?.text == "Back to the start of the lesson: a fresh world. Enter runs the first step.")

        InspectorUpdate.apply(.lesson(LessonOutcome(.wentTo(stepsRun: 2), stepCount: 8, stepDevice: "iPad")), to: &state)
        #expect(state.message?.text == LessonMode.positionMessage(stepsRun: 2, stepCount: 8))
        #expect(state.focusedDevice == 2)

        InspectorUpdate.apply(.lesson(LessonOutcome(.rebuildFailed(reason: "the file is gone"), stepCount: 8)), to: &state)
        #expect(state.message == InspectorMessage("The lesson's world could not be built again: the file is gone", kind: .error))

        InspectorUpdate.apply(.lesson(LessonOutcome(.alreadyOver, stepCount: 8)), to: &state)
        #expect(state.message?.text == "The lesson is over: b starts it again, t jumps to a step, q quits.")
        #expect(state.focusedDevice == 2, "nothing ran: the focus stays")
    }

    @Test func theClockCommandsChangeTheClockAndSaySo() {
        var state = state()
        InspectorUpdate.apply(.clock(.paused(false)), to: &state)
        #expect(!state.clock.isPaused)
        #expect(state.message?.text == "Clock running.")
        InspectorUpdate.apply(.clock(.paused(true)), to: &state)
        #expect(state.clock.isPaused)
        #expect(state.message?.text.hasPrefix("Clock paused") == true)

        InspectorUpdate.apply(.clock(.speed(2)), to: &state)
        #expect(state.clock.speed == 2)
        #expect(state.message?.text.hasPrefix("Clock speed \(Format.speed(2)): one real second is") == true)

        InspectorUpdate.apply(.clock(.stepped(to: 3_250, lastEvent: "Mac: fetch run #2 done: 1 change applied")), to: &state)
        #expect(state.clock.now == 3_250)
        #expect(state.message?.text == "Stepped to \(Format.clock(3_250)): Mac: fetch run #2 done: 1 change applied")
        InspectorUpdate.apply(.clock(.stepped(to: 4_250, lastEvent: nil)), to: &state)
        #expect(state.message?.text == "Stepped to \(Format.clock(4_250)): nothing was due.")

        let before = state.clock
        InspectorUpdate.apply(.clock(.live), to: &state)
        #expect(state.clock == before)
        #expect(state.message?.text == "The clock is live (a device on a real server): pause, speed and step do not apply.")
    }

    @Test func aFaultInAWorldWithoutFaultsIsRefusedInASentence() {
        var state = state()
        InspectorKeys.say("Fault on for iPhone: push loss: drop every notification.", state: &state)
        state.needsRedraw = false
        InspectorUpdate.apply(.faults(.added(FaultRule(.pushDrop, match: FaultMatch(device: "iPhone")))), to: &state)
        #expect(state.message?.text == "Fault on for iPhone: push loss: drop every notification.", "the key said it; the outcome keeps it")
        #expect(state.needsRedraw)

        InspectorUpdate.apply(.faults(.notInjectable), to: &state)
        #expect(state.message == InspectorMessage(
            "Faults from the inspector need a simulated world; on a real server use syncscope client faults.", kind: .error))
    }

    @Test func theWriterAndTheClipboardSayWhatTheyDid() {
        var state = state()
        InspectorUpdate.apply(.writer(running: true, interval: 2_000), to: &state)
        #expect(state.message?.text == "Writer started: a change every \(Format.seconds(2_000)).")
        InspectorUpdate.apply(.writer(running: false, interval: 2_000), to: &state)
        #expect(state.message?.text == "Writer stopped.")

        InspectorUpdate.apply(.copied(what: "token …k3Jd9x0", .unavailable("no terminal is attached.")), to: &state)
        #expect(state.message == InspectorMessage("Could not copy token …k3Jd9x0: no terminal is attached.", kind: .warning))

        state.needsRedraw = false
        InspectorUpdate.apply(.nothing, to: &state)
        #expect(state.message?.text == "Could not copy token …k3Jd9x0: no terminal is attached.")
        #expect(!state.needsRedraw)
    }
}
