import SyncCore

/// Fetches which zones of a database changed since a token, mirroring
/// `CKFetchDatabaseChangesOperation`.
///
/// Configure it, set the blocks you need, then `await run()` (which calls the
/// blocks) or `try await fetch()` (which collects everything). An operation
/// runs once and is used from one task.
///
/// Callbacks, in order, for each batch (one `changes/database` response):
/// one zone block per entry, then — unless the batch is the last one this
/// operation handles — `changeTokenUpdatedBlock` with the batch's token.
/// Finally `fetchDatabaseChangesResultBlock` is called exactly once, with
/// the last batch's token (cache it, overwriting the earlier one) or the error.
public final class FetchDatabaseChangesOperation {
    public let service: any CloudService
    public let scope: DatabaseScope
    /// `nil`: fetch every zone of the database's history (first launch, or a refetch).
    public var previousServerChangeToken: ServerChangeToken?
    /// Most zone entries per batch; `nil` or 0: the server's cap.
    public var resultsLimit: Int?
    /// Whether to keep asking until the server has nothing more (`moreComing` false).
    public var fetchAllChanges = true
    /// Stop after this many batches, as if the app were killed there: the
    /// batches before the stop are delivered with their tokens, then the
    /// result block gets ``SyncClientError/interrupted(afterBatches:)``.
    /// A batch that ends the fetch anyway completes normally.
    public var batchLimit: Int?

    /// A zone was created, shared in, or has record changes: fetch its changes.
    public var recordZoneWithIDChangedBlock: ((RecordZoneID) -> Void)?
    /// A zone no longer exists (deleted by the app, or no longer shared with you).
    public var recordZoneWithIDWasDeletedBlock: ((RecordZoneID) -> Void)?
    /// The user deleted the app's data in Settings: delete local data, do not upload it again.
    public var recordZoneWithIDWasPurgedBlock: ((RecordZoneID) -> Void)?
    /// The user reset their encrypted data: drop tokens and upload local data again.
    public var recordZoneWithIDWasDeletedDueToUserEncryptedDataResetBlock: ((RecordZoneID) -> Void)?
    /// After each batch but the last: that batch's token, to cache.
    public var changeTokenUpdatedBlock: ((ServerChangeToken) -> Void)?
    /// Called once: the final token and whether the server has more, or the error.
    public var fetchDatabaseChangesResultBlock: ((Result<(serverChangeToken: ServerChangeToken, moreComing: Bool), any Error>) -> Void)?

    /// How many batches this operation has received so far.
    public private(set) var batchesReceived = 0
    private var isCancelled = false
    private var hasRun = false

    public init(service: any CloudService, scope: DatabaseScope, previousServerChangeToken: ServerChangeToken? = nil) {
        self.service = service
        self.scope = scope
        self.previousServerChangeToken = previousServerChangeToken
    }

    /// Stops the operation before its next request; the result block gets ``SyncClientError/cancelled``.
    public func cancel() { isCancelled = true }

    /// Runs the operation, calling the blocks.
    public func run() async {
        guard !hasRun else {
            fetchDatabaseChangesResultBlock?(.failure(CloudError(
                .invalidArguments, "This FetchDatabaseChangesOperation has already run; create a new one for another fetch.")))
            return
        }
        hasRun = true
        var token = previousServerChangeToken
        while true {
            if isCancelled {
                fetchDatabaseChangesResultBlock?(.failure(SyncClientError.cancelled))
                return
            }
            if let batchLimit, batchesReceived >= batchLimit {
                fetchDatabaseChangesResultBlock?(.failure(SyncClientError.interrupted(afterBatches: batchesReceived)))
                return
            }
            let batch: DatabaseChangesBatch
            do {
                batch = try await service.fetchDatabaseChanges(in: scope, since: token, resultsLimit: resultsLimit)
            } catch {
                fetchDatabaseChangesResultBlock?(.failure(error))
                return
            }
            batchesReceived += 1
            for change in batch.changes {
                switch change {
                case .zoneChanged(let id): recordZoneWithIDChangedBlock?(id)
                case .zoneRemoved(let id, .deleted): recordZoneWithIDWasDeletedBlock?(id)
                case .zoneRemoved(let id, .purged): recordZoneWithIDWasPurgedBlock?(id)
                case .zoneRemoved(let id, .encryptedDataReset): recordZoneWithIDWasDeletedDueToUserEncryptedDataResetBlock?(id)
                }
            }
            token = batch.serverChangeToken
            if !batch.moreComing || !fetchAllChanges {
                fetchDatabaseChangesResultBlock?(.success((batch.serverChangeToken, batch.moreComing)))
                return
            }
            changeTokenUpdatedBlock?(batch.serverChangeToken)
        }
    }

    /// Runs the operation and collects what its blocks would have received.
    /// Throws the error the result block would get, except an interruption
    /// by `batchLimit`, which comes back as ``FetchDatabaseChangesResult/wasInterrupted``.
    public func fetch() async throws -> FetchDatabaseChangesResult {
        var result: FetchDatabaseChangesResult
        let collector = Collector()
        recordZoneWithIDChangedBlock = { collector.value.changedZoneIDs.append($0) }
        recordZoneWithIDWasDeletedBlock = { collector.value.deletedZoneIDs.append($0) }
        recordZoneWithIDWasPurgedBlock = { collector.value.purgedZoneIDs.append($0) }
        recordZoneWithIDWasDeletedDueToUserEncryptedDataResetBlock = { collector.value.encryptedDataResetZoneIDs.append($0) }
        changeTokenUpdatedBlock = { collector.value.intermediateTokens.append($0) }
        fetchDatabaseChangesResultBlock = { collector.outcome = $0 }
        await run()
        let outcome = collector.outcome
        result = collector.value
        result.batchCount = batchesReceived
        switch outcome {
        case .success(let final)?:
            result.serverChangeToken = final.serverChangeToken
            result.moreComing = final.moreComing
        case .failure(SyncClientError.interrupted)?:
            result.wasInterrupted = true
            result.serverChangeToken = result.intermediateTokens.last ?? previousServerChangeToken
            result.moreComing = true
        case .failure(let error)?:
            throw error
        case nil:
            throw SyncClientError.cancelled
        }
        return result
    }

    private final class Collector {
        var value = FetchDatabaseChangesResult()
        var outcome: Result<(serverChangeToken: ServerChangeToken, moreComing: Bool), any Error>?
    }
}
