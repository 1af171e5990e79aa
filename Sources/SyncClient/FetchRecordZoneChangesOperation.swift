import Foundation
import SyncCore

/// Fetches the record changes of one or more zones since their tokens,
/// mirroring `CKFetchRecordZoneChangesOperation`.
///
/// Zones are processed one after the other, in the order of `recordZoneIDs`.
/// For each batch (one `changes/zone` response) of a zone: one record block
/// per change, then — unless it is the zone's last batch in this operation —
/// `recordZoneChangeTokensUpdatedBlock` with the batch's token. Each zone ends
/// with exactly one `recordZoneFetchResultBlock` (its final token, or its
/// error: an error in one zone does not stop the others), and the operation
/// with exactly one `fetchRecordZoneChangesResultBlock`.
public final class FetchRecordZoneChangesOperation {
    /// What to fetch from one zone, mirroring `CKFetchRecordZoneChangesOperation.ZoneConfiguration`.
    public struct ZoneConfiguration: Sendable, Hashable {
        /// `nil`: every record of the zone (first fetch, or a refetch).
        public var previousServerChangeToken: ServerChangeToken?
        /// Most changes per batch; `nil` or 0: the server's cap.
        public var resultsLimit: Int?
        /// `nil`: all fields; `[]`: none.
        public var desiredKeys: [String]?

        public init(previousServerChangeToken: ServerChangeToken? = nil, resultsLimit: Int? = nil, desiredKeys: [String]? = nil) {
            self.previousServerChangeToken = previousServerChangeToken
            self.resultsLimit = resultsLimit
            self.desiredKeys = desiredKeys
        }
    }

    public let service: any CloudService
    public let scope: DatabaseScope
    public var recordZoneIDs: [RecordZoneID]
    public var configurationsByRecordZoneID: [RecordZoneID: ZoneConfiguration]
    /// Whether to keep asking for each zone until its `moreComing` is false;
    /// `false`: one batch per zone.
    public var fetchAllChanges = true
    /// Stop after this many batches in all, as if the app were killed there:
    /// the batches before the stop are delivered with their tokens; the zone
    /// being fetched and every later zone end with ``SyncClientError/interrupted(afterBatches:)``.
    public var batchLimit: Int?

    /// A record in its latest state.
    public var recordWasChangedBlock: ((RecordID, Result<Record, any Error>) -> Void)?
    /// A record was deleted; the string is its record type.
    public var recordWithIDWasDeletedBlock: ((RecordID, String) -> Void)?
    /// After each batch of a zone but its last: the zone's token to cache, and
    /// the client change token data the server holds for the zone.
    public var recordZoneChangeTokensUpdatedBlock: ((RecordZoneID, ServerChangeToken?, Data?) -> Void)?
    /// Once per zone: its final token, or why it failed.
    public var recordZoneFetchResultBlock: ((RecordZoneID, Result<(serverChangeToken: ServerChangeToken, clientChangeTokenData: Data?, moreComing: Bool), any Error>) -> Void)?
    /// Once: success, or `partialFailure` when some zone failed (or the interruption or cancellation).
    public var fetchRecordZoneChangesResultBlock: ((Result<Void, any Error>) -> Void)?

    /// How many batches this operation has received so far, over all zones.
    public private(set) var batchesReceived = 0
    private var isCancelled = false
    private var hasRun = false

    public init(
        service: any CloudService,
        scope: DatabaseScope,
        recordZoneIDs: [RecordZoneID],
        configurationsByRecordZoneID: [RecordZoneID: ZoneConfiguration] = [:]
    ) {
        self.service = service
        self.scope = scope
        self.recordZoneIDs = recordZoneIDs
        self.configurationsByRecordZoneID = configurationsByRecordZoneID
    }

    /// Stops the operation before its next request.
    public func cancel() { isCancelled = true }

    /// Runs the operation, calling the blocks.
    public func run() async {
        guard !hasRun else {
            fetchRecordZoneChangesResultBlock?(.failure(CloudError(
                .invalidArguments, "This FetchRecordZoneChangesOperation has already run; create a new one for another fetch.")))
            return
        }
        hasRun = true
        var stop: SyncClientError?
        var failedZones: [(RecordZoneID, any Error)] = []
        for zoneID in recordZoneIDs {
            let configuration = configurationsByRecordZoneID[zoneID] ?? ZoneConfiguration()
            var token = configuration.previousServerChangeToken
            zoneLoop: while true {
                if stop == nil, isCancelled { stop = .cancelled }
                if stop == nil, let batchLimit, batchesReceived >= batchLimit { stop = .interrupted(afterBatches: batchesReceived) }
                if let stop {
                    recordZoneFetchResultBlock?(zoneID, .failure(stop))
                    break zoneLoop
                }
                let request = ZoneChangesRequest(
                    zoneID: zoneID, previousServerChangeToken: token, resultsLimit: configuration.resultsLimit,
                    desiredKeys: configuration.desiredKeys)
                let answer: Result<ZoneChangesBatch, any Error>
                do {
                    let results = try await service.fetchRecordZoneChanges(in: scope, [request])
                    if let first = results.first {
                        answer = first.mapError { $0 }
                    } else {
                        answer = .failure(CloudError(.internalError, "The server answered a changes/zone request for zone '\(zoneID.zoneName)' with no result.", zoneID: zoneID))
                    }
                } catch {
                    answer = .failure(error)
                }
                switch answer {
                case .failure(let error):
                    failedZones.append((zoneID, error))
                    recordZoneFetchResultBlock?(zoneID, .failure(error))
                    break zoneLoop
                case .success(let batch):
                    batchesReceived += 1
                    for change in batch.changes {
                        switch change {
                        case .changed(let record): recordWasChangedBlock?(record.recordID, .success(record))
                        case .deleted(let id, let type): recordWithIDWasDeletedBlock?(id, type)
                        }
                    }
                    token = batch.serverChangeToken
                    if !batch.moreComing || !fetchAllChanges {
                        recordZoneFetchResultBlock?(zoneID, .success((batch.serverChangeToken, batch.clientChangeTokenData, batch.moreComing)))
                        break zoneLoop
                    }
                    recordZoneChangeTokensUpdatedBlock?(zoneID, batch.serverChangeToken, batch.clientChangeTokenData)
                }
            }
        }
        if let stop {
            fetchRecordZoneChangesResultBlock?(.failure(stop))
        } else if !failedZones.isEmpty {
            let names = failedZones.map { "'\($0.0.zoneName)' (\(Self.describe($0.1)))" }.joined(separator: ", ")
            fetchRecordZoneChangesResultBlock?(.failure(CloudError(
                .partialFailure,
                "\(failedZones.count) of \(recordZoneIDs.count) zone\(recordZoneIDs.count == 1 ? "" : "s") could not be fetched: \(names).")))
        } else {
            fetchRecordZoneChangesResultBlock?(.success(()))
        }
    }

    private static func describe(_ error: any Error) -> String {
        if let cloud = error as? CloudError { return cloud.code.rawValue }
        return String(describing: error)
    }

    /// Runs the operation and collects what its blocks would have received.
    /// Per-zone errors are in ``FetchRecordZoneChangesResult/zoneResults``;
    /// an interruption by `batchLimit` sets ``FetchRecordZoneChangesResult/wasInterrupted``.
    /// Throws only when the operation was cancelled or had already run.
    public func fetch() async throws -> FetchRecordZoneChangesResult {
        let collector = Collector()
        recordWasChangedBlock = { _, result in
            if case .success(let record) = result { collector.value.changedRecords.append(record) }
        }
        recordWithIDWasDeletedBlock = { collector.value.deletedRecords.append(DeletedRecord(recordID: $0, recordType: $1)) }
        recordZoneChangeTokensUpdatedBlock = { zoneID, token, data in
            if let token { collector.value.intermediateTokens.append(ZoneTokenUpdate(zoneID: zoneID, token: token, clientChangeTokenData: data)) }
        }
        recordZoneFetchResultBlock = { zoneID, result in
            collector.value.zoneResults.append(ZoneFetchResult(zoneID: zoneID, result: result.map {
                ZoneFetchOutcome(serverChangeToken: $0.serverChangeToken, clientChangeTokenData: $0.clientChangeTokenData, moreComing: $0.moreComing)
            }))
        }
        fetchRecordZoneChangesResultBlock = { collector.outcome = $0 }
        await run()
        var result = collector.value
        result.batchCount = batchesReceived
        switch collector.outcome {
        case .failure(SyncClientError.interrupted)?:
            result.wasInterrupted = true
        case .failure(let error as CloudError)? where error.code == .partialFailure:
            break
        case .failure(let error)?:
            throw error
        case .success?:
            break
        case nil:
            throw SyncClientError.cancelled
        }
        return result
    }

    private final class Collector {
        var value = FetchRecordZoneChangesResult()
        var outcome: Result<Void, any Error>?
    }
}
