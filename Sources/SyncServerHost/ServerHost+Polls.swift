import Foundation
import SyncCore
import SyncWire
import SyncServer

/// Long-polls (the web courier): a device waits for its next notification.
extension ServerHost {
    /// What a long-poll hands a device: its answer, and the notification in
    /// it, which stays the device's until it acknowledges it.
    package struct PollResult: Sendable {
        package var answer: APIAnswer
        package var deviceID: String
        package var notificationIDs: [String]
        /// On a shared journal: the poll's claim on its notification (``ServerStore/claimDeliveries(device:notificationIDs:claimant:now:lease:)``).
        package var claimant: String? = nil
    }

    /// Waits until a notification is there for the device, or the time is
    /// up, or the client is gone (`presence`). First acknowledges what the
    /// device certainly has: when the poll names `lastNotificationID`, that
    /// one and those before it that earlier polls wrote out whole (an empty
    /// name: nothing), else everything the previous polls wrote out whole.
    ///
    /// Each answer carries **one** notification in Apple's push form
    /// (``WirePushPayload``: `{"aps", "ck"}`, ours under `syncscope`), the
    /// oldest waiting; the next poll gets the next. A poll whose time is up
    /// with nothing waiting answers 200 with an empty body, as Apple's web
    /// courier does. Notifications leave the server only when acknowledged;
    /// call ``finishPoll(_:written:)`` when the answer is written (or not).
    package func poll(
        deviceID: String, user: String, timeout: Duration, lastNotificationID: String?, presence: ClientPresence?, caughtUp: Bool = false
    ) async -> PollResult {
        func result(_ answer: APIAnswer) -> PollResult { PollResult(answer: answer, deviceID: deviceID, notificationIDs: []) }
        // A channel made on another node, and what other nodes delivered, are here once this node caught up.
        if !caughtUp { try? await catchUp() }
        let admitted = state.withLock { state -> APIAnswer? in
            guard state.core.push.owner(ofDevice: deviceID) == user else {
                return .notFound(
                    "You have no push channel '\(deviceID)' in this server: make one with tokens/create (signed in as yourself), then poll the webcourierURL it gives.")
            }
            guard state.openPolls[deviceID, default: 0] < options.maxPollsPerDevice else {
                return .tryAgainLater(
                    "Device '\(deviceID)' already has \(options.maxPollsPerDevice) long-poll\(options.maxPollsPerDevice == 1 ? "" : "s") open, the most one device may have; let one finish first.",
                    retryAfter: 1)
            }
            state.openPolls[deviceID, default: 0] += 1
            return nil
        }
        if let admitted { return result(admitted) }
        // On a shared journal: this poll's claims and presence lease, and the notifications polls on other nodes hold.
        let claimant = store.pollClaimant()
        if let claimant { await openSharedPoll(deviceID, poll: claimant, timeout: timeout) }
        await pollStarted(deviceID)
        defer { pollEnded(deviceID, poll: claimant) }
        await acknowledge(deviceID: deviceID, lastNotificationID: lastNotificationID)

        let deadline = ContinuousClock.now + timeout
        var heldElsewhere: Set<String> = []
        while true {
            let ticket = courier.ticket(for: deviceID)
            presence?.onGone { ticket.signal() }
            if presence?.isGone == true {
                courier.discard(ticket)
                return result(.badRequest("The client closed the connection."))
            }
            let taken = take(deviceID, user: user, skipping: heldElsewhere)
            if let taken, let claimant {
                switch await claimShared(taken.ck.nid, deviceID: deviceID, claimant: claimant) {
                case .claimed:
                    break
                case .heldElsewhere:
                    courier.discard(ticket)
                    heldElsewhere.insert(taken.ck.nid)
                    continue
                case .failed(let answer):
                    courier.discard(ticket)
                    return result(answer)
                }
            }
            if taken != nil || ContinuousClock.now >= deadline || Task.isCancelled {
                courier.discard(ticket)
                guard let taken else { return result(APIAnswer(body: Data())) }
                let body = (try? WireJSON.encode(taken)) ?? Data()
                return PollResult(answer: APIAnswer(body: body), deviceID: deviceID, notificationIDs: [taken.ck.nid], claimant: claimant)
            }
            await ticket.wait(until: deadline)
            courier.discard(ticket)
        }
    }

    /// A poll of a webcourierURL's last segment (`token`): the URL is the
    /// credential. It polls the device the URL names when its secret part is
    /// that device's (``ServerEngine/webcourierSecret(forDevice:)``) and the
    /// poll carries no credentials or its owner's (`caller`); anything else
    /// (an altered URL, another user's credentials) is a 404 that tells
    /// nothing about the channel. Then as ``poll(deviceID:user:timeout:lastNotificationID:presence:caughtUp:)``.
    package func poll(
        webcourierToken token: String, caller: String?, timeout: Duration, lastNotificationID: String?, presence: ClientPresence?
    ) async -> PollResult {
        let unknown = PollResult(
            answer: .notFound(
                "This server has no such webcourierURL: poll the URL that tokens/create (or tokens/register) answered, exactly as it is, without credentials or with its creator's."),
            deviceID: "", notificationIDs: [])
        guard let (deviceID, secret) = APIDispatcher.webcourierParts(token) else { return unknown }
        // A channel made on another node is here once this node caught up.
        try? await catchUp()
        let owner = state.withLock { state -> String? in
            guard let owner = state.core.push.owner(ofDevice: deviceID), caller == nil || caller == owner,
                state.core.engine.isWebcourierSecret(secret, forDevice: deviceID)
            else { return nil }
            return owner
        }
        guard let owner else { return unknown }
        return await poll(
            deviceID: deviceID, user: owner, timeout: timeout, lastNotificationID: lastNotificationID, presence: presence, caughtUp: true)
    }

    /// The answer of a poll was written out whole (`written`), or not: then
    /// its notification goes back to waiting for the device's next poll.
    package func finishPoll(_ result: PollResult, written: Bool) {
        guard !result.notificationIDs.isEmpty else { return }
        state.withLock { state in
            state.inFlight[result.deviceID]?.subtract(result.notificationIDs)
            if state.inFlight[result.deviceID]?.isEmpty == true { state.inFlight[result.deviceID] = nil }
            if written { state.written[result.deviceID, default: []].formUnion(result.notificationIDs) }
        }
        if !written { courier.notify([result.deviceID]) }
        if let claimant = result.claimant {
            Task { await store.finishDeliveries(device: result.deviceID, notificationIDs: result.notificationIDs, claimant: claimant, written: written) }
        }
    }

    /// The oldest delivered notification of a device that no other poll is
    /// writing out, marked as being written, in Apple's push form; `nil` when none waits.
    private func take(_ deviceID: String, user: String, skipping: Set<String> = []) -> WirePushPayload? {
        // Deliveries happen at steps and when the delivery timer fires (on a shared journal, at journal positions).
        state.withLock { (state: inout State) -> WirePushPayload? in
            let busy = (state.inFlight[deviceID] ?? []).union(skipping)
            let inbox = (try? state.core.push.unacknowledgedNotifications(for: deviceID)) ?? []
            guard let next = inbox.first(where: { !busy.contains($0.notificationID) }) else { return nil }
            let id = next.notificationID
            state.inFlight[deviceID, default: []].insert(id)
            state.written[deviceID]?.remove(id)
            // The device's owner is the subscription's owner: push channels and subscriptions are per user.
            return WirePushPayload(next, ownerRecordName: user, queuedAt: state.core.push.queuedAt(ofNotification: id, for: deviceID))
        }
    }

    /// Acknowledges what the device certainly has (see ``poll(deviceID:user:timeout:lastNotificationID:presence:caughtUp:)``).
    /// A notification before `lastNotificationID` whose answer was never
    /// written whole (it went back to waiting) is not acknowledged: the
    /// device never had it.
    private func acknowledge(deviceID: String, lastNotificationID: String?) async {
        // On a shared journal, what polls on other nodes wrote out whole counts too.
        let elsewhere = await writtenElsewhere(deviceID)
        let ids = state.withLock { state -> [String] in
            var ids: Set<String>
            let written = (state.written[deviceID] ?? []).union(elsewhere)
            if let last = lastNotificationID {
                ids = []
                let inbox = (try? state.core.push.unacknowledgedNotifications(for: deviceID)) ?? []
                if !last.isEmpty, let index = inbox.firstIndex(where: { $0.notificationID == last }) {
                    ids = Set(inbox[..<index].map(\.notificationID).filter(written.contains))
                    ids.insert(last)
                }
            } else {
                ids = written
            }
            state.written[deviceID]?.subtract(ids)
            if state.written[deviceID]?.isEmpty == true { state.written[deviceID] = nil }
            return ids.sorted()
        }
        guard !ids.isEmpty else { return }
        let answer = await perform(.server("acknowledge", DispatcherInternal.Acknowledge(deviceID: deviceID, notificationIDs: ids)))
        if answer.status == 200 {
            events.record(ServerEvent(time: SystemClock().now(), kind: .acknowledged(deviceID: deviceID, notificationIDs: ids)))
            await forgetWritten(deviceID, ids)
        }
    }

    private func pollStarted(_ deviceID: String) async {
        let offline = state.withLock { state in state.core.push.isOnline(deviceID) == false }
        if offline {
            _ = await perform(.server("online", DispatcherInternal.DeviceOnline(deviceID: deviceID, online: true)))
        }
    }

    private func pollEnded(_ deviceID: String, poll: String? = nil) {
        state.withLock { state in
            state.openPolls[deviceID, default: 1] -= 1
            if state.openPolls[deviceID] == 0 { state.openPolls[deviceID] = nil }
            state.lastPollEnd[deviceID] = SystemClock().now()
        }
        let grace = options.offlineAfter
        Task { [self] in
            if let poll { await endSharedPoll(deviceID, poll: poll) }
            try? await Task.sleep(for: .milliseconds(grace))
            var goOffline = state.withLock { state in
                state.openPolls[deviceID] == nil && state.core.push.isOnline(deviceID) == true
                    && (state.lastPollEnd[deviceID] ?? 0) + grace <= SystemClock().now()
            }
            // On a shared journal: not while the device polls another node.
            if goOffline, poll != nil { goOffline = await noSharedPollLive(deviceID) }
            if goOffline {
                _ = await perform(.server("online", DispatcherInternal.DeviceOnline(deviceID: deviceID, online: false)))
            }
        }
    }

    // MARK: Presence across nodes

    /// A poll opened on this node: its presence lease lasts until its
    /// deadline and the grace period after it (see ``PostgresJournalStore/openPoll(device:poll:until:)``).
    package func openSharedPoll(_ deviceID: String, poll: String, timeout: Duration) async {
        let until = SystemClock().now() + Milliseconds(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000) + options.offlineAfter
        await store.openPoll(device: deviceID, poll: poll, until: until)
    }

    /// A poll ended on this node: its lease lasts the grace period, no longer.
    package func endSharedPoll(_ deviceID: String, poll: String) async {
        await store.endPoll(device: deviceID, poll: poll, until: SystemClock().now() + options.offlineAfter)
    }

    /// Whether no poll of the device is open (or ended within the grace
    /// period) on any node. While one is, waits for its lease to run out and
    /// asks again (its node may be killed meanwhile), as long as this node
    /// still is where the device's last poll ended and the device is online.
    /// When the leases cannot be read: `false` (the device stays online until a later poll ends).
    package func noSharedPollLive(_ deviceID: String) async -> Bool {
        let lastEnd = state.withLock { $0.lastPollEnd[deviceID] }
        while true {
            let live: Int64?
            do { live = try await store.livePollsUntil(device: deviceID, now: SystemClock().now()) } catch { return false }
            guard let until = live else { return true }
            try? await Task.sleep(for: .milliseconds(max(1, until - SystemClock().now() + 1)))
            try? await catchUp()
            let stillLast = state.withLock { state in
                !state.stopped && state.openPolls[deviceID] == nil && state.lastPollEnd[deviceID] == lastEnd && state.core.push.isOnline(deviceID) == true
            }
            guard stillLast else { return false }
        }
    }

    // MARK: Notifications written out, across nodes

    /// What claiming a notification for a poll came to.
    package enum SharedClaim {
        case claimed
        /// A poll on another node is writing it out (or wrote it out, and its lease has not run out).
        case heldElsewhere
        /// The claim could not be asked for: the poll answers this.
        case failed(APIAnswer)
    }

    /// Claims a notification this node took for a poll in the shared
    /// delivery claims, so a poll of the same device on another node does
    /// not answer it too. The claim is a lease of ``ServeOptions/offlineAfter``:
    /// a node killed while writing the answer out leaves a claim that lapses,
    /// and a later poll on any node gets the notification. Not claimed: the
    /// notification goes back (this node marked it as being written out).
    package func claimShared(_ id: String, deviceID: String, claimant: String) async -> SharedClaim {
        let claimed: Bool
        do {
            claimed = try await store.claimDeliveries(
                device: deviceID, notificationIDs: [id], claimant: claimant, now: SystemClock().now(), lease: options.offlineAfter
            ) == [id]
        } catch {
            releaseTaken(id, deviceID: deviceID)
            return .failed(.tryAgainLater("This server cannot reach the shared journal to hand out a notification (\(error)); poll again.", retryAfter: 1))
        }
        if !claimed { releaseTaken(id, deviceID: deviceID) }
        return claimed ? .claimed : .heldElsewhere
    }

    private func releaseTaken(_ id: String, deviceID: String) {
        state.withLock { state in
            state.inFlight[deviceID]?.remove(id)
            if state.inFlight[deviceID]?.isEmpty == true { state.inFlight[deviceID] = nil }
        }
    }

    /// The notifications polls on any node wrote out whole to the device (none without a shared journal).
    package func writtenElsewhere(_ deviceID: String) async -> Set<String> {
        Set(await store.writtenDeliveries(device: deviceID))
    }

    /// The acknowledged notifications' claims go (they are in the journal now).
    package func forgetWritten(_ deviceID: String, _ ids: [String]) async {
        await store.dropDeliveries(device: deviceID, notificationIDs: ids)
    }
}
