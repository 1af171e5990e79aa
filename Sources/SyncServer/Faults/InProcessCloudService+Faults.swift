import Foundation
import SyncCore

extension InProcessCloudService {
    /// This connection's call, as the fault plan matches it.
    func call(_ operation: String, _ scope: DatabaseScope, zones: [String] = []) -> FaultCall {
        FaultCall(operation: operation, database: scope, zoneNames: zones, user: caller.user, deviceID: caller.deviceID)
    }

    /// Runs an engine call as the fault plan says: after its latency, failing
    /// with its error, or applied with the answer lost (ambiguous commit).
    /// With no plan it is exactly the plain call.
    func faulted<T: Sendable>(_ call: @autoclosure () -> FaultCall, _ body: (ServerEngine) throws(CloudError) -> T) async throws -> T {
        guard let decision = server.faultDecision(for: call()) else { return try server.withEngine(body) }
        await server.wait(decision.latency)
        switch decision.failure {
        case .error(let error)?:
            throw error
        case .ambiguousCommit?:
            _ = try? server.withEngine(body)
            throw CloudError.answerLost(call().operation)
        case .itemFailures?, nil:
            return try server.withEngine(body)
        }
    }

    /// `records/modify` under a fault decision: latency, a whole-request
    /// error, an ambiguous commit, or failures of some items (the others are
    /// applied; in an atomic batch nothing is, and the others fail with `ATOMIC_ERROR`).
    func modifyRecords(
        in scope: DatabaseScope, zoneID: RecordZoneID, operations: [RecordOperation], atomic: Bool, clientChangeTokenData: Data?,
        faults decision: FaultInjector.Decision
    ) async throws -> [Result<RecordOperationResult, CloudError>] {
        await server.wait(decision.latency)
        let database = DatabaseID(container: container, environment: environment, scope: scope)
        let caller = caller
        func apply(_ operations: [RecordOperation]) throws(CloudError) -> [Result<RecordOperationResult, CloudError>] {
            try server.withEngine { (e) throws(CloudError) in
                try e.modifyRecords(
                    caller: caller, database: database, zoneID: zoneID, operations: operations, atomic: atomic,
                    clientChangeTokenData: clientChangeTokenData)
            }
        }
        switch decision.failure {
        case .error(let error)?:
            throw error
        case .ambiguousCommit?:
            _ = try? apply(operations)
            throw CloudError.answerLost("records/modify")
        case .itemFailures(let code, let retryAfter)?:
            let failing = server.failingItems(count: operations.count)
            func itemError(_ operation: RecordOperation) -> CloudError {
                .injectedItemFailure(code, recordName: operation.record.recordID.recordName, zoneID: zoneID, retryAfter: retryAfter)
            }
            if atomic {
                return zip(operations, failing).map { operation, fails in
                    fails ? .failure(itemError(operation))
                        : .failure(.atomicPartnerFailed(recordName: operation.record.recordID.recordName, zoneID: zoneID))
                }
            }
            let applied = zip(operations, failing).filter { !$0.1 }.map(\.0)
            var answers = applied.isEmpty ? [] : try apply(applied)[...]
            return zip(operations, failing).map { operation, fails in
                fails ? .failure(itemError(operation)) : answers.popFirst() ?? .failure(itemError(operation))
            }
        case nil:
            return try apply(operations)
        }
    }
}
