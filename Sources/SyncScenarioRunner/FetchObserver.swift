import SyncCore
import SyncClient
import SyncSimulation
import SyncWorlds

/// Turns the change fetches the devices' connections saw (``ConnectionTap``)
/// into transcript lines, and sums up what each device's own
/// ``DeviceSyncEngine`` fetched (in a `sync`, or when a push or coming
/// online made it fetch) for `lastFetch` checks.
///
/// Lines show the requests as they were made and the answers as they came:
/// a fetch with a `resultsLimit`, or one batch at a time, is shown batch by
/// batch exactly. A batch's number counts the batches of one chain: a
/// request from the token of the previous answer that had `moreComing`
/// continues it; anything else starts a new one.
///
/// A scenario's `fetch` step runs its own fetch (``ScenarioFetcher``): its
/// batches get lines here too, but it sums itself up
/// (``beginScenarioFetch(on:)``).
final class FetchObserver {
    private struct ChainKey: Hashable {
        var device: String
        var scope: DatabaseScope
        /// `nil`: the database chain.
        var zoneID: RecordZoneID?
    }

    private struct OpenFetch {
        var summary: FetchSummary
        var tokensBefore: TokenCache?
    }

    /// Per chain: the token that continues it and the number of its last batch.
    private var chains: [ChainKey: (token: ServerChangeToken, index: Int)] = [:]
    /// Engine fetches under way, by device.
    private var open: [String: OpenFetch] = [:]
    /// The device whose scenario `fetch` step is running, if any.
    private var scenarioFetchDevice: String?

    /// Called with each batch's line.
    var report: (TranscriptEvent.Kind) -> Void = { _ in }
    /// Called when a device's engine fetch ends, with everything it received.
    var finished: (FetchSummary) -> Void = { _ in }

    /// Takes in what the connections saw, in order.
    func take(_ fetches: [ObservedFetch], devices: (String) -> SyncDevice?) {
        for fetch in fetches { take(fetch, device: devices(fetch.device)) }
    }

    /// An engine event of `device`: a fetch begins or ends.
    func handle(_ event: SyncEvent, on device: SyncDevice) {
        switch event {
        case .fetchStarted(let scope, _):
            // The engine counts batches from each of its fetches.
            chains = chains.filter { $0.key.device != device.name || $0.key.scope != scope }
            openIfNeeded(device)
        case .fetchRunFinished:
            close(device)
        default:
            break
        }
    }

    /// A scenario `fetch` step begins on `device`: its batches start new
    /// chains and it sums itself up. Call ``endScenarioFetch()`` after.
    func beginScenarioFetch(on device: SyncDevice) {
        scenarioFetchDevice = device.name
        chains = chains.filter { $0.key.device != device.name }
    }

    func endScenarioFetch() {
        scenarioFetchDevice = nil
    }

    /// Ends every engine fetch still open (at the end of a step).
    func closeAll(devices: [SyncDevice]) {
        for device in devices { close(device) }
    }

    /// Forgets everything (a new run).
    func reset() {
        chains = [:]
        open = [:]
        scenarioFetchDevice = nil
    }

    // MARK: Lines and sums

    private func take(_ fetch: ObservedFetch, device: SyncDevice?) {
        let summing = fetch.device != scenarioFetchDevice
        if summing, let device { openIfNeeded(device) }
        switch fetch {
        case .database(let name, let scope, let since, let batch):
            let index = nextIndex(ChainKey(device: name, scope: scope, zoneID: nil), since: since, batch.serverChangeToken, batch.moreComing)
            report(.databaseChanges(device: name, scope: scope, batch: index, batch))
            guard summing else { return }
            open[name]?.summary.batches += 1
            open[name]?.summary.moreComing = batch.moreComing
            for change in batch.changes {
                switch change {
                case .zoneChanged(let zoneID): open[name]?.summary.zones.append(zoneID)
                case .zoneRemoved(let zoneID, let reason): open[name]?.summary.deletedZones.append(RemovedZone(zoneID: zoneID, reason: reason))
                }
            }
        case .zones(let name, let scope, let requests, let results):
            for (request, result) in zip(requests, results) {
                guard case .success(let batch) = result else { continue }
                let key = ChainKey(device: name, scope: scope, zoneID: request.zoneID)
                let index = nextIndex(key, since: request.previousServerChangeToken, batch.serverChangeToken, batch.moreComing)
                report(.zoneChanges(device: name, scope: scope, batch: index, batch))
                guard summing else { continue }
                open[name]?.summary.batches += 1
                open[name]?.summary.moreComing = batch.moreComing
                for change in batch.changes {
                    switch change {
                    case .changed(let record): open[name]?.summary.records.append(record)
                    case .deleted(let recordID, let type): open[name]?.summary.deletions.append(DeletedRecord(recordID: recordID, recordType: type))
                    }
                }
            }
        }
    }

    /// The number of a batch answering a request from `since` (0: the first of a chain).
    private func nextIndex(_ key: ChainKey, since: ServerChangeToken?, _ token: ServerChangeToken, _ moreComing: Bool) -> Int {
        var index = 0
        if let since, let chain = chains[key], chain.token == since { index = chain.index + 1 }
        chains[key] = moreComing ? (token, index) : nil
        return index
    }

    private func openIfNeeded(_ device: SyncDevice) {
        guard open[device.name] == nil, device.name != scenarioFetchDevice else { return }
        open[device.name] = OpenFetch(summary: FetchSummary(device: device.name), tokensBefore: try? device.store.tokenCache())
    }

    private func close(_ device: SyncDevice) {
        guard var fetch = open.removeValue(forKey: device.name) else { return }
        fetch.summary.tokenChanged = (try? device.store.tokenCache()) != fetch.tokensBefore
        finished(fetch.summary)
    }
}
