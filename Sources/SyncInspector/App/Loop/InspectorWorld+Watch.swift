import SyncCore
import SyncWire
import SyncWorlds

/// The effects of the inspector on a server: the feed's long-poll and the
/// reads of every user's data, through the world's `ServerObserver` (the
/// same interface the panes of an in-process world read).
extension InspectorWorld {
    /// Waits `delay` ms (after a failure), then reads the feed's events after `after`.
    func readFeed(after: UInt64, timeout: Double, delay: Milliseconds) async -> InspectorMsg {
        if delay > 0 { try? await Task.sleep(for: .milliseconds(delay)) }
        do {
            guard let page = try await observer.eventFeed(after: after, timeout: timeout) else {
                return .feedRead(.failure(CloudError(.invalidArguments, "\(observer.source) keeps no event feed this inspector can read.")))
            }
            return .feedRead(.success(page))
        } catch {
            return .feedRead(.failure(Self.cloudError(error)))
        }
    }

    /// Every user's zones, the records of the zone asked for, the lags of the client's tokens.
    func readWatch(_ request: ServerWatchRequest) async -> InspectorMsg {
        let observer = self.observer
        let environment = observer.watchedEnvironment
        do {
            let users = try await observer.userNames()
            var zones: [WatchedZone] = []
            for user in users {
                for zone in try await observer.zoneSummaries(user: user, environment: environment) {
                    zones.append(WatchedZone(user: user, scope: zone.scope, zoneID: zone.zoneID, recordCount: zone.recordCount, shares: zone.shares))
                }
            }
            var records: [Record] = []
            if let zone = request.zone {
                records = try await observer.records(in: zone.zoneID, scope: zone.scope, user: zone.user, environment: environment)
            }
            var lags: [WatchedLag] = []
            if let user = request.user {
                for place in request.tokens {
                    guard let target = place.target else { continue }
                    // A shared zone is its owner's: the client named them in its request.
                    let zoneID = target.zoneName.map { RecordZoneID(zoneName: $0, ownerName: place.zoneOwner ?? user) }
                    let token = ServerChangeToken(rawValue: place.token)
                    switch try await observer.rewind(from: token, zoneID: zoneID, scope: target.scope, user: user, environment: environment, resultsLimit: 200) {
                    case .success(.zone(let batch)):
                        lags.append(WatchedLag(place: place.place, token: place.token, changes: batch.changes.count, more: batch.moreComing))
                    case .success(.database(let batch)):
                        lags.append(WatchedLag(place: place.place, token: place.token, changes: batch.changes.count, more: batch.moreComing))
                    case .failure(let error):
                        lags.append(WatchedLag(place: place.place, token: place.token, changes: nil, refusal: error.code.serverErrorCode))
                    }
                }
            }
            return .watchRead(.success(ServerWatchReading(request: request, users: users, zones: zones, records: records, lags: lags)))
        } catch {
            return .watchRead(.failure(Self.cloudError(error)))
        }
    }

    /// Gives a client of the server a new short name.
    func renameClient(_ key: String, to name: String) async -> InspectorMsg {
        do {
            return .clientRenamed(.success(try await observer.renameClient(key, to: name)))
        } catch {
            return .clientRenamed(.failure(Self.cloudError(error)))
        }
    }

    static func cloudError(_ error: any Error) -> CloudError {
        error as? CloudError ?? CloudError(.networkFailure, String(describing: error))
    }
}
