import SyncCore
import SyncDoctor
import SyncWire

/// The update step of the inspector on a server: ``InspectorReducer/reduce(_:_:)``
/// hands it every message while ``ServerWatchState/isOn``. Pure, as the
/// reducer it belongs to: the feed's long-poll and the reads of the server
/// are effects (``InspectorEffect/readFeed(after:timeout:delay:)``,
/// ``InspectorEffect/readWatch(_:)``) whose answers come back as messages.
/// One feed read is under way at a time (the next is asked for when it
/// answers: the loop blocks meanwhile), and one server read, plus one wanted after it.
public enum ServerWatchReducer {
    public static func reduce(_ state: inout InspectorState, _ message: InspectorMsg) -> [InspectorEffect] {
        let effects = apply(message, to: &state)
        state.watch.refreshFocus()
        return effects
    }

    private static func apply(_ message: InspectorMsg, to state: inout InspectorState) -> [InspectorEffect] {
        switch message {
        case .started(let size, let now, _):
            state.screenSize = size
            state.realNow = now
            state.needsRedraw = true
            return nextFeedRead(&state, delay: 0) + read(&state)
        case .refresh:
            return read(&state)
        case .tick(let now):
            state.realNow = now
            return []
        case .resized(let size):
            state.screenSize = size
            clamp(&state)
            state.needsRedraw = true
            return []
        case .frameDrawn:
            state.needsRedraw = false
            return []
        case .key(let key):
            return ServerWatchKeys.handle(key, state: &state)
        case .feedRead(let result):
            return feedRead(result, state: &state)
        case .watchRead(let result):
            return watchRead(result, state: &state)
        case .clientRenamed(let result):
            clientRenamed(result, state: &state)
            return []
        case .command(.quit):
            return [.quit]
        case .command, .worldEvent, .effectStarted, .commandFinished, .serverRead, .worldRead, .advanced, .worldReplaced:
            // The world has no devices of its own: nothing else to show.
            return []
        }
    }

    // MARK: The feed

    static func nextFeedRead(_ state: inout InspectorState, delay: Milliseconds) -> [InspectorEffect] {
        guard !state.watch.feedWaiting else { return [] }
        state.watch.feedWaiting = true
        return [.readFeed(after: state.watch.next, timeout: state.watch.pollTimeout, delay: delay)]
    }

    static func feedRead(_ result: Result<WireServerEvents, CloudError>, state: inout InspectorState) -> [InspectorEffect] {
        state.watch.feedWaiting = false
        switch result {
        case .success(let page):
            if let known = state.watch.node, known != page.node {
                // The server started again: its feed is new and numbered from 1 again, so the
                // cursor means nothing there. It is read from its start; what was shown stays.
                state.watch.node = page.node
                state.watch.next = 0
                state.watch.problem = nil
                state.message = InspectorMessage("The server started again: its event feed is new, and is read from its start.")
                state.needsRedraw = true
                return nextFeedRead(&state, delay: 0)
            }
            state.watch.node = page.node
            let hadProblem = state.watch.problem != nil
            state.watch.problem = nil
            state.watch.next = page.next
            state.watch.missed += Int(clamping: page.missed)
            var effects: [InspectorEffect] = []
            if !page.events.isEmpty {
                state.watch.take(page.events)
                clamp(&state)
                effects += read(&state)
            }
            let diagnoses = diagnose(state)
            if diagnoses != state.watch.diagnoses || !page.events.isEmpty || hadProblem {
                state.watch.diagnoses = diagnoses
                clamp(&state)
                state.needsRedraw = true
            }
            return effects + nextFeedRead(&state, delay: 0)
        case .failure(let error):
            state.watch.problem = "The event feed cannot be read: \(error.reason) Trying again every 2 s."
            state.needsRedraw = true
            return nextFeedRead(&state, delay: 2000)
        }
    }

    /// The server's answer to a rename: the clients' names as they are now (the feed's next events carry them too).
    static func clientRenamed(_ result: Result<[WireClient], CloudError>, state: inout InspectorState) {
        state.needsRedraw = true
        switch result {
        case .success(let clients):
            var renamed: String?
            for client in clients {
                guard let index = state.watch.clientIndex[client.client], state.watch.clients[index].name != client.name else { continue }
                state.watch.clients[index].name = client.name
                renamed = client.name
            }
            state.message = InspectorMessage(renamed.map { "Renamed: \($0)." } ?? "The name is as it was.")
        case .failure(let error):
            state.message = InspectorMessage("The client could not be renamed: \(error.reason)")
        }
    }

    /// The doctor's diagnoses of the events kept, as of the later of the
    /// loop's last wake-up and the last event (a push is ignored only once its window passed).
    static func diagnose(_ state: InspectorState) -> [Diagnosis] {
        let now = max(state.realNow, state.watch.events.last?.time ?? 0)
        return SyncDoctor().diagnose(state.watch.events, now: now)
    }

    // MARK: Reading the server

    /// What the panes need of the server now: the selected zone's records
    /// and the focused client's latest token for each place it fetched.
    static func request(_ state: InspectorState) -> ServerWatchRequest {
        let watch = state.watch
        let focus = watch.focus
        // The latest token given for each place (``WatchFocus/latestIssued``: only the watched
        // container's can be asked about, the observer reads it alone), places in the order first given one.
        let tokens = focus.issuedPlaces.compactMap { place -> ServerWatchRequest.Place? in
            guard let index = focus.latestIssued[place], let token = focus.history[index].issued else { return nil }
            return ServerWatchRequest.Place(place: place, token: token, zoneOwner: focus.history[index].zoneOwner)
        }
        return ServerWatchRequest(zone: watch.selectedZone, client: watch.focusedClient?.key, user: watch.focusedClient?.user, tokens: tokens)
    }

    /// Asks for a read of the server, or for another once the one under way answers.
    static func read(_ state: inout InspectorState) -> [InspectorEffect] {
        if state.watch.readWaiting {
            state.watch.readAgain = true
            return []
        }
        state.watch.readWaiting = true
        return [.readWatch(request(state))]
    }

    static func watchRead(_ result: Result<ServerWatchReading, CloudError>, state: inout InspectorState) -> [InspectorEffect] {
        state.watch.readWaiting = false
        state.needsRedraw = true
        switch result {
        case .success(let reading):
            let selected = state.watch.selectedZone
            state.watch.users = reading.users
            state.watch.zones = reading.zones
            // The selection follows its zone where the list moved it; until the
            // person chooses one, the first custom zone (as the in-process inspector does).
            let follow = state.watch.zoneChosen ? selected : reading.zones.first { !$0.zoneID.isDefaultZone } ?? selected
            if let follow, let index = state.watch.zoneRows.firstIndex(where: {
                guard let zone = $0.zone else { return false }
                return zone.user == follow.user && zone.scope == follow.scope && zone.zoneID == follow.zoneID
            }) {
                state.watch.zoneTable.selection = index
            }
            if reading.request.zone == state.watch.selectedZone || state.watch.recordsZone == nil {
                state.watch.recordsZone = reading.request.zone
                state.watch.records = reading.records
            }
            if reading.request.client == state.watch.focusedClient?.key {
                state.watch.lags = reading.lags
                state.watch.lagsClient = reading.request.client
            }
            if state.watch.problem?.hasPrefix("The server cannot be read") == true { state.watch.problem = nil }
            clamp(&state)
            // The selection moved while the read was under way: read what it shows now.
            if state.watch.readAgain || reading.request != request(state) {
                state.watch.readAgain = false
                return read(&state)
            }
            return []
        case .failure(let error):
            state.watch.readAgain = false
            state.watch.problem = "The server cannot be read: \(error.reason)"
            return []
        }
    }

    /// Keeps every table's selection inside its rows.
    static func clamp(_ state: inout InspectorState) {
        let layout = ServerWatchLayout(size: state.screenSize)
        state.watch.clientTable.clamp(rowCount: state.watch.clients.count, visibleRows: layout.visibleRows(.clients))
        let zoneRows = state.watch.zoneRows
        state.watch.zoneTable.clamp(rowCount: zoneRows.count, visibleRows: layout.visibleRows(.zones), selectable: { zoneRows[$0].zone != nil })
        state.watch.recordTable.clamp(rowCount: state.watch.records.count, visibleRows: layout.visibleRows(.records))
        state.watch.diagnosisTable.clamp(rowCount: state.watch.diagnoses.count, visibleRows: layout.visibleDiagnoses)
    }
}
