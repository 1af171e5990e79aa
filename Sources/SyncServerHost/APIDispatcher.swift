import Foundation
import SyncCore
import SyncWire
import SyncServer

/// Applies one ``APICall`` to the engine and the push layer and words the
/// answer. Plain and synchronous: the caller holds the server's lock, and
/// the same calls at the same times on the same state give the same answers
/// (the journal's replay relies on it).
package struct APIDispatcher {
    package let core: ServerCore
    package let now: Milliseconds
    /// `http://host:port`, for `webcourierURL`.
    package let baseURL: String
    /// `false` in the journal's replay, which discards every answer: none is encoded.
    package var answering = true
    /// The call's body, decoded before the step (outside the lock): ``DecodedBody``.
    package var decodedBody: DecodedBody?
    /// Set in the step of a prepared call: the answer's JSON is encoded after the lock.
    package var deferredEncoding: DeferredEncoding?
    /// The server-to-server keys the admin route `serverKeys` adds to (the server's own, not the engine's).
    package var serverKeys: ServerKeyRing? = nil

    package static let maxOperations = 400

    package func answer(_ call: APICall) -> APIAnswer {
        let parts = TextChecks.pathSegments(call.path)
        do {
            switch try Self.route(call, parts) {
            case .refused(let answer):
                return answer
            case .found(let route, let arguments):
                guard case .dispatcher(let handler, _) = route.handling else { return Self.noSuchPath(call, parts) }
                return try handler(self, call, arguments)
            }
        } catch {
            return .error(error)
        }
    }

    /// A call's route in ``WebServicesRoute/table``, its path arguments read
    /// and its method checked (reading only the call: it runs outside the lock
    /// when a call is prepared), or the answer that refuses it.
    package enum Routed {
        case found(WebServicesRoute, RouteArguments)
        case refused(APIAnswer)
    }

    package static func route(_ call: APICall, _ parts: [String]) throws(CloudError) -> Routed {
        switch WebServicesRoute.resolve(parts) {
        case .unknownPath:
            return .refused(noSuchPath(call, parts))
        case .unknownOperation(let family, let operation):
            // A server call's path exists only for the server.
            if family == .serverCall, !call.isServerCall { return .refused(noSuchPath(call, parts)) }
            // The path's arguments are checked first, as for a known operation.
            _ = try RouteArguments(parts, family)
            return .refused(.notFound(unknownOperation(family, operation, call)))
        case .route(let route):
            guard case .dispatcher = route.handling, route.family != .serverCall || call.isServerCall else {
                return .refused(noSuchPath(call, parts))
            }
            let arguments = try RouteArguments(parts, route.family)
            guard route.methods.allows(call.method) else {
                // A method the API takes, on a route that does not: 405, with the route's methods in Allow.
                return .refused(.error(CloudError(.invalidArguments, "\(call.path) takes \(route.methods.names), not \(call.method)."), status: 405))
            }
            return .found(route, arguments)
        }
    }

    /// The 404 of a path no route has the shape of.
    package static func noSuchPath(_ call: APICall, _ parts: [String]) -> APIAnswer {
        switch parts.first {
        case "database":
            .notFound(
                "There is no '\(call.path)'; database calls are /database/1/{container}/{environment}/{database}/{operation}, for example /database/1/iCloud.com.example.App/development/private/records/modify.")
        case "device":
            .notFound(
                "There is no '\(call.path)'; device calls are /device/1/{container}/{environment}/tokens/create and tokens/register, and GET on the webcourierURL that tokens/create gives.")
        case "admin":
            .notFound("There is no '\(call.path)'; admin calls are /admin/1/{container}/{environment}/{operation}.")
        case "assets":
            .notFound("There is no '\(call.path)'; asset URLs come from assets/upload and from ASSET fields' downloadURL.")
        default:
            .notFound("There is no '\(call.path)'; the API lives under /database/1/, /device/1/ and /admin/1/.")
        }
    }

    /// The reason of a 404 for an operation a family does not have, with the ones it has.
    package static func unknownOperation(_ family: WebServicesRoute.Family, _ operation: String, _ call: APICall) -> String {
        func known(_ families: WebServicesRoute.Family...) -> String {
            families.flatMap { WebServicesRoute.operations(of: $0) }.joined(separator: ", ")
        }
        switch family {
        case .database:
            return "There is no database operation '\(operation)'. Known: \(known(.database, .users)); and \(known(.pushTokens)) at /database/1/{container}/{environment}/tokens/."
        case .users:
            return "There is no 'users/\(operation)'. Known: \(known(.users))."
        case .pushTokens, .devicePushTokens:
            return "There is no device operation 'tokens/\(operation)'; use \(WebServicesRoute.operations(of: family).joined(separator: " or "))."
        case .admin:
            return "There is no admin operation '\(operation)'. Known: \(known(.admin))."
        case .serverCall:
            return "There is no internal call '\(call.path)'."
        case .assetFiles, .webcourier, .document, .sharePage:
            return "There is no '\(call.path)'; asset URLs come from assets/upload and from ASSET fields' downloadURL."
        }
    }

    // MARK: Paths

    // The checks below read nothing but the call: they run outside the state
    // lock when a call is prepared (``PreparedCall``), and inside it otherwise.

    package static func parseEnvironment(_ text: String) throws(CloudError) -> ContainerEnvironment {
        guard let environment = ContainerEnvironment(rawValue: text) else {
            throw CloudError(.invalidArguments, "'\(text)' is not an environment; use development or production.")
        }
        return environment
    }

    package static func parseScope(_ text: String) throws(CloudError) -> DatabaseScope {
        guard let scope = DatabaseScope(rawValue: text) else {
            throw CloudError(.invalidArguments, "'\(text)' is not a database; use public, private or shared.")
        }
        return scope
    }

    package static func parseContainer(_ text: String) throws(CloudError) -> String {
        guard !text.isEmpty, text.utf8.count <= 255, !TextChecks.containsControlCharacter(text)
        else {
            throw CloudError(.invalidArguments, "The container name must be 1 to 255 bytes without control characters.")
        }
        return text
    }

    package static func signedInUser(_ call: APICall, _ what: String) throws(CloudError) -> Caller {
        guard let user = call.user else {
            throw CloudError(
                .notAuthenticated,
                "\(what) needs a signed-in user: pass ckWebAuthToken=TOKEN or the header 'Authorization: Bearer TOKEN' (syncscope serve prints each user's token).")
        }
        return Caller(user: user, deviceID: call.deviceID)
    }

    package static func decodeBody<T: Decodable>(_ type: T.Type, _ call: APICall) throws(CloudError) -> T {
        try WireJSON.decode(type, from: call.body.isEmpty ? Data("{}".utf8) : call.body)
    }

    /// The caller, or anonymous in the public database (which anyone may read).
    package static func publicOrSignedIn(_ call: APICall, _ arguments: RouteArguments, _ what: String) throws(CloudError) -> Caller {
        if arguments.scope == .public, call.user == nil { return Caller(user: "", deviceID: call.deviceID) }
        return try signedInUser(call, what)
    }

    package static func checkOperationCount(_ count: Int, _ what: String) throws(CloudError) {
        guard count <= maxOperations else {
            throw CloudError(
                .limitExceeded,
                "This request has \(count) \(what); at most \(maxOperations) are allowed in one request. Nothing was applied; split it into smaller requests.")
        }
    }

    package func environment(_ text: String) throws(CloudError) -> ContainerEnvironment { try Self.parseEnvironment(text) }
    package func scope(_ text: String) throws(CloudError) -> DatabaseScope { try Self.parseScope(text) }
    package func container(_ text: String) throws(CloudError) -> String { try Self.parseContainer(text) }
    package func requireUser(_ call: APICall, _ what: String) throws(CloudError) -> Caller { try Self.signedInUser(call, what) }
    package func decode<T: Decodable>(_ type: T.Type, _ call: APICall) throws(CloudError) -> T { try decodeRequest(type, call) }
    package func checkCount(_ count: Int, _ what: String) throws(CloudError) { try Self.checkOperationCount(count, what) }

    /// The answer, encoded unless this is the journal's replay (which discards it);
    /// in a prepared call's step, encoded after the lock (``encodeAnswer(_:prettyPrinted:changed:tokenIn:tokenOut:)``).
    package func encode<T: Encodable & Sendable>(
        _ value: T, changed: Bool = false, tokenIn: ServerChangeToken? = nil, tokenOut: ServerChangeToken? = nil
    ) throws(CloudError) -> APIAnswer {
        try encodeAnswer(value, prettyPrinted: false, changed: changed, tokenIn: tokenIn, tokenOut: tokenOut)
    }

    // MARK: records/modify

    package func modifyRecords(_ call: APICall, _ db: DatabaseID, caller: Caller) throws(CloudError) -> APIAnswer {
        let plan = try Self.modifyRecordsPlan(call, caller: caller)
        let results = try applyModifyRecords(plan, db)
        guard answering else { return APIAnswer(body: Data(), changedState: true) }
        return Self.modifyRecordsAnswer(results, plan, db, fill: { withShareKeys(withDownloadURLs($0, db), caller: plan.caller, db, zoneID: plan.zoneID) })
    }

    /// `records/modify` decoded and checked, before the engine sees it.
    package struct ModifyRecordsPlan: Sendable {
        package var caller: Caller
        package var zoneID: RecordZoneID
        package var operations: [RecordOperation]
        package var atomic: Bool
        package var clientToken: Data?
        package var desiredKeys: [String]?
        /// The operations that save a share (kept in the journal as JSON:
        /// the binary plan has no room for their keys).
        package var shares: [ShareChange] = []
        /// Whether a record names its parent or share (kept in the journal as
        /// JSON: the binary plan has no room for them).
        package var hasSystemReferences = false

        /// Whether the journal keeps this plan's call as JSON, not in binary form.
        package var keptAsJSON: Bool { !shares.isEmpty || hasSystemReferences }
    }

    package static func modifyRecordsPlan(_ call: APICall, caller: Caller) throws(CloudError) -> ModifyRecordsPlan {
        let request = try decodeBody(WireRecordsModifyRequest.self, call)
        try checkOperationCount(request.operations.count, "record operations")
        let zoneID = request.zoneID.map(RecordZoneID.init) ?? RecordZoneID(zoneName: RecordZoneID.defaultZoneName, ownerName: "")
        var operations: [RecordOperation] = []
        operations.reserveCapacity(request.operations.count)
        var hasSystemReferences = false
        for (index, operation) in request.operations.enumerated() {
            guard let type = RecordOperationType(rawValue: operation.operationType) else {
                let known = RecordOperationType.allCases.map(\.rawValue).joined(separator: ", ")
                throw CloudError(
                    .invalidArguments,
                    "operations[\(index)].operationType is '\(operation.operationType)'; records/modify knows \(known). Nothing was applied.")
            }
            let record: Record
            do {
                record = try Record(operation.record, zoneID: zoneID)
            } catch {
                throw CloudError(.invalidArguments, "operations[\(index)]: \(error.reason) Nothing was applied.", recordName: operation.record.recordName)
            }
            operations.append(RecordOperation(type: type, record: record, removedFieldNames: operation.record.fieldNamesWithoutValue))
            if record.parent != nil || record.share != nil { hasSystemReferences = true }
        }
        let shares = try shareChanges(request.operations, operations)
        var clientToken: Data?
        if let text = request.clientChangeTokenData {
            guard let data = Data(base64Encoded: text) else {
                throw CloudError(.invalidArguments, "clientChangeTokenData is not base64. Nothing was applied.")
            }
            clientToken = data
        }
        return ModifyRecordsPlan(
            caller: caller, zoneID: zoneID, operations: operations, atomic: request.atomic ?? true, clientToken: clientToken,
            desiredKeys: request.desiredKeys, shares: shares, hasSystemReferences: hasSystemReferences)
    }

    /// The engine step of `records/modify`.
    package func applyModifyRecords(_ plan: ModifyRecordsPlan, _ db: DatabaseID) throws(CloudError) -> [Result<RecordOperationResult, CloudError>] {
        let records = { () throws(CloudError) in
            try core.engine.modifyRecords(
                caller: plan.caller, database: db, zoneID: plan.zoneID, operations: plan.operations, atomic: plan.atomic,
                clientChangeTokenData: plan.clientToken)
        }
        return plan.shares.isEmpty ? try records() : try applyShareChanges(plan, db, records: records)
    }

    package static func modifyRecordsChanged(_ results: [Result<RecordOperationResult, CloudError>], _ plan: ModifyRecordsPlan) -> Bool {
        plan.clientToken != nil || results.contains { if case .success = $0 { true } else { false } }
    }

    /// The answer of `records/modify`, worded from the engine's results alone
    /// (`fill` adds asset download URLs; it reads the engine only when it holds assets).
    package static func modifyRecordsAnswer(
        _ results: [Result<RecordOperationResult, CloudError>], _ plan: ModifyRecordsPlan, _ db: DatabaseID, fill: (WireRecord) -> WireRecord
    ) -> APIAnswer {
        let items: [WireResult<WireRecord>] = results.map { result in
            switch result {
            case .success(.saved(var record)):
                record.fields = record.fields.filtered(to: plan.desiredKeys)
                return .success(fill(WireRecord(record)))
            case .success(let deleted):
                return .success(WireRecord(deleted))
            case .failure(let error):
                return .failure(WireError(error))
            }
        }
        do {
            var answer = APIAnswer(body: try WireJSON.encode(WireRecordsResponse(records: items)), changedState: modifyRecordsChanged(results, plan))
            answer.changes = items.compactMap { item in
                guard case .success(let record) = item else { return nil }
                return CallChange(record.isDeleted ? .deleted : .saved, zone: plan.zoneID.zoneName, recordName: record.recordName)
            }
            return answer
        } catch {
            return .error(error)
        }
    }

    package func modifySubscriptions(_ call: APICall, _ db: DatabaseID, caller: Caller) throws(CloudError) -> APIAnswer {
        try core.engine.checkCaller(caller)
        let request = try decode(WireSubscriptionsModifyRequest.self, call)
        try checkCount(request.operations.count, "subscription operations")
        var saving: [(Int, Subscription)] = []
        var deleting: [(Int, String)] = []
        var early: [Int: CloudError] = [:]
        for (index, operation) in request.operations.enumerated() {
            switch operation.operationType {
            case "create", "update":
                let subscription: Subscription
                do {
                    subscription = try Subscription(operation.subscription)
                } catch {
                    throw CloudError(.invalidArguments, "operations[\(index)]: \(error.reason) Nothing was applied.", subscriptionID: operation.subscription.subscriptionID)
                }
                if operation.operationType == "update",
                   case .failure(let error)? = core.push.fetchSubscriptions(user: caller.user, database: db, subscriptionIDs: [subscription.subscriptionID]).first {
                    early[index] = error
                } else {
                    saving.append((index, subscription))
                }
            case "delete":
                deleting.append((index, operation.subscription.subscriptionID))
            default:
                throw CloudError(
                    .invalidArguments,
                    "operations[\(index)].operationType is '\(operation.operationType)'; subscriptions/modify knows create, update and delete. Nothing was applied.")
            }
        }
        let results = try core.push.modifySubscriptions(
            user: caller.user, database: db, saving: saving.map(\.1), deleting: deleting.map(\.1))
        var ordered = [WireResult<WireSubscription>?](repeating: nil, count: request.operations.count)
        for (index, error) in early { ordered[index] = .failure(WireError(error)) }
        var changed = false
        for (slot, result) in zip(saving.map(\.0) + deleting.map(\.0), results) {
            switch result {
            case .success(.saved(let subscription)):
                changed = true
                ordered[slot] = .success(WireSubscription(subscription))
            case .success(.deleted(let id)):
                changed = true
                ordered[slot] = .success(WireSubscription(deleted: id))
            case .failure(let error):
                ordered[slot] = .failure(WireError(error))
            }
        }
        return try encode(WireSubscriptionsResponse(subscriptions: ordered.compactMap { $0 }), changed: changed)
    }
}
