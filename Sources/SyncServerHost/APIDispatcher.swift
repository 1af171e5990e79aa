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

    package static let maxOperations = 400

    package func answer(_ call: APICall) -> APIAnswer {
        let parts = call.path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        do {
            switch parts.first {
            case "database": return try database(call, parts)
            case "device": return try device(call, parts)
            case "admin": return try admin(call, parts)
            // Never from the network: the HTTP layer refuses /internal/ and
            // only the server itself makes calls marked as its own.
            case "internal" where call.isServerCall: return try internalCall(call, parts)
            case "assets": return try assetFiles(call, parts)
            default:
                return .notFound("There is no '\(call.path)'; the API lives under /database/1/, /device/1/ and /admin/1/.")
            }
        } catch {
            return .error(error)
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

    package static func checkCallMethod(_ call: APICall, allowsGet: Bool = false) throws(CloudError) {
        guard call.method == "POST" || (allowsGet && call.method == "GET") else {
            throw CloudError(.invalidArguments, "\(call.path) takes \(allowsGet ? "GET or POST" : "POST"), not \(call.method).")
        }
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
    package func checkMethod(_ call: APICall, allowsGet: Bool = false) throws(CloudError) { try Self.checkCallMethod(call, allowsGet: allowsGet) }
    package func checkCount(_ count: Int, _ what: String) throws(CloudError) { try Self.checkOperationCount(count, what) }

    /// The answer, encoded unless this is the journal's replay (which discards it);
    /// in a prepared call's step, encoded after the lock (``encodeAnswer(_:prettyPrinted:changed:tokenIn:tokenOut:)``).
    package func encode<T: Encodable & Sendable>(
        _ value: T, changed: Bool = false, tokenIn: ServerChangeToken? = nil, tokenOut: ServerChangeToken? = nil
    ) throws(CloudError) -> APIAnswer {
        try encodeAnswer(value, prettyPrinted: false, changed: changed, tokenIn: tokenIn, tokenOut: tokenOut)
    }

    // MARK: /database/1/{container}/{environment}/{database}/{operation}

    private func database(_ call: APICall, _ parts: [String]) throws(CloudError) -> APIAnswer {
        if let answer = try appleRoute(call, parts) { return answer }
        guard parts.count == 7, parts[1] == "1" else {
            return .notFound(
                "There is no '\(call.path)'; database calls are /database/1/{container}/{environment}/{database}/{operation}, for example /database/1/iCloud.com.example.App/development/private/records/modify.")
        }
        let db = DatabaseID(container: try container(parts[2]), environment: try environment(parts[3]), scope: try scope(parts[4]))
        let operation = parts[5] + "/" + parts[6]
        let engine = core.engine
        let isPublic = db.scope == .public
        func caller(_ what: String) throws(CloudError) -> Caller {
            if isPublic, call.user == nil { return Caller(user: "", deviceID: call.deviceID) }
            return try requireUser(call, what)
        }
        switch operation {
        case "zones/list":
            try checkMethod(call, allowsGet: true)
            let listing = try engine.listRecordZones(caller: try caller("Listing zones"), database: db)
            return try encode(WireZonesResponse(zones: listing.map { .success(WireZone(zoneID: WireZoneID($0.zoneID), syncToken: $0.syncToken)) }))
        case "zones/lookup":
            try checkMethod(call)
            let request = try decode(WireZonesLookupRequest.self, call)
            let who = try caller("Looking up zones")
            let listing = try engine.listRecordZones(caller: who, database: db)
            let results: [WireResult<WireZone>] = request.zones.map { wanted in
                var id = RecordZoneID(wanted.zoneID)
                if id.ownerName.isEmpty || id.ownerName == RecordZoneID.currentUserName { id.ownerName = isPublic ? RecordZoneID.publicOwnerName : who.user }
                if let found = listing.first(where: { $0.zoneID == id }) {
                    return .success(WireZone(zoneID: WireZoneID(found.zoneID), syncToken: found.syncToken))
                }
                return .failure(WireError(CloudError(.zoneNotFound, "Zone '\(id.zoneName)' does not exist in this database.", zoneID: id)))
            }
            return try encode(WireZonesResponse(zones: results))
        case "zones/modify":
            try checkMethod(call)
            let request = try decode(WireZonesModifyRequest.self, call)
            try checkCount(request.operations.count, "zone operations")
            var saving: [(Int, RecordZoneID)] = []
            var deleting: [(Int, RecordZoneID)] = []
            for (index, operation) in request.operations.enumerated() {
                let id = RecordZoneID(operation.zone.zoneID)
                switch operation.operationType {
                case "create": saving.append((index, id))
                case "delete": deleting.append((index, id))
                default:
                    throw CloudError(.invalidArguments, "operations[\(index)].operationType is '\(operation.operationType)'; zones/modify knows create and delete.")
                }
            }
            let results = try engine.modifyRecordZones(
                caller: try requireUser(call, "Changing zones"), database: db, saving: saving.map(\.1), deleting: deleting.map(\.1))
            var ordered = [WireResult<WireZone>?](repeating: nil, count: request.operations.count)
            for (slot, result) in zip(saving.map(\.0) + deleting.map(\.0), results) {
                switch result {
                case .success(let zone):
                    let deleted = deleting.contains { $0.0 == slot }
                    ordered[slot] = .success(WireZone(zoneID: WireZoneID(zone.zoneID), deleted: deleted ? true : nil))
                case .failure(let error): ordered[slot] = .failure(WireError(error))
                }
            }
            let changed = results.contains { if case .success = $0 { true } else { false } }
            return try encode(WireZonesResponse(zones: ordered.compactMap { $0 }), changed: changed)
        case "zones/share":
            try checkMethod(call)
            let request = try decode(WireZoneShareRequest.self, call)
            guard db.scope == .private else {
                throw CloudError(.invalidArguments, "zones/share works in the private database, where the owner's zones are; this call names '\(db.scope.rawValue)'.")
            }
            let revoke: Bool
            switch request.operationType {
            case "share": revoke = false
            case "revoke": revoke = true
            default: throw CloudError(.invalidArguments, "operationType is '\(request.operationType)'; zones/share knows share and revoke.")
            }
            let who = try requireUser(call, "Sharing a zone")
            let participants = try engine.shareRecordZone(
                caller: who, database: db, zoneID: RecordZoneID(request.zoneID), participants: request.participants, revoke: revoke)
            var zoneID = RecordZoneID(request.zoneID)
            if zoneID.ownerName.isEmpty || zoneID.ownerName == RecordZoneID.currentUserName { zoneID.ownerName = who.user }
            return try encode(WireZoneShareResponse(zoneID: WireZoneID(zoneID), participants: participants), changed: true)
        case "records/modify":
            try checkMethod(call)
            return try modifyRecords(call, db, caller: try requireUser(call, "Saving records"))
        case "records/lookup":
            return try lookupRecords(call, db, caller: try caller("Looking up records"))
        case "records/query":
            return try queryRecords(call, db, caller: try caller("Querying records"))
        case "records/changes":
            return try recordsChanges(call, db, caller: try requireUser(call, "Fetching record changes"))
        case "zones/changes":
            return try zonesChanges(call, db, caller: try requireUser(call, "Fetching zone changes"))
        case "assets/upload":
            return try assetsUpload(call, db, caller: try requireUser(call, "Uploading assets"))
        case "changes/database":
            try checkMethod(call)
            let request = try decode(WireDatabaseChangesRequest.self, call)
            let batch = try engine.fetchDatabaseChanges(
                caller: try requireUser(call, "Fetching database changes"), database: db, since: request.syncToken, resultsLimit: request.resultsLimit)
            return try encode(WireDatabaseChanges(batch), tokenIn: request.syncToken, tokenOut: batch.serverChangeToken)
        case "changes/zone":
            return try zoneChanges(call, db, caller: try requireUser(call, "Fetching zone changes"))
        case "subscriptions/modify":
            try checkMethod(call)
            return try modifySubscriptions(call, db, caller: try requireUser(call, "Changing subscriptions"))
        case "subscriptions/list", "subscriptions/lookup":
            try checkMethod(call, allowsGet: operation == "subscriptions/list")
            let who = try requireUser(call, "Reading subscriptions")
            try engine.checkCaller(who)
            var ids: [String]?
            if operation == "subscriptions/lookup" {
                let request = try decode(WireSubscriptionsLookupRequest.self, call)
                try checkCount(request.subscriptions.count, "subscriptions to look up")
                ids = request.subscriptions.map(\.subscriptionID)
            }
            let results = core.push.fetchSubscriptions(user: who.user, database: db, subscriptionIDs: ids)
            return try encode(WireSubscriptionsResponse(subscriptions: results.map { result in
                switch result {
                case .success(let subscription): .success(WireSubscription(subscription))
                case .failure(let error): .failure(WireError(error))
                }
            }))
        default:
            return .notFound(
                "There is no database operation '\(operation)'. Known: zones/list, zones/lookup, zones/modify, zones/changes, zones/share, records/modify, records/lookup, records/query, records/changes, changes/database, changes/zone, subscriptions/modify, subscriptions/list, subscriptions/lookup, assets/upload, users/current, users/caller, users/discover, users/lookup/email, users/lookup/id, users/lookup/contacts; and tokens/create, tokens/register at /database/1/{container}/{environment}/tokens/.")
        }
    }

    private func modifyRecords(_ call: APICall, _ db: DatabaseID, caller: Caller) throws(CloudError) -> APIAnswer {
        let plan = try Self.modifyRecordsPlan(call, caller: caller)
        let results = try applyModifyRecords(plan, db)
        guard answering else { return APIAnswer(body: Data(), changedState: true) }
        return Self.modifyRecordsAnswer(results, plan, db, fill: { withDownloadURLs($0, db) })
    }

    /// `records/modify` decoded and checked, before the engine sees it.
    package struct ModifyRecordsPlan: Sendable {
        package var caller: Caller
        package var zoneID: RecordZoneID
        package var operations: [RecordOperation]
        package var atomic: Bool
        package var clientToken: Data?
        package var desiredKeys: [String]?
    }

    package static func modifyRecordsPlan(_ call: APICall, caller: Caller) throws(CloudError) -> ModifyRecordsPlan {
        let request = try decodeBody(WireRecordsModifyRequest.self, call)
        try checkOperationCount(request.operations.count, "record operations")
        let zoneID = request.zoneID.map(RecordZoneID.init) ?? RecordZoneID(zoneName: RecordZoneID.defaultZoneName, ownerName: "")
        var operations: [RecordOperation] = []
        operations.reserveCapacity(request.operations.count)
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
        }
        var clientToken: Data?
        if let text = request.clientChangeTokenData {
            guard let data = Data(base64Encoded: text) else {
                throw CloudError(.invalidArguments, "clientChangeTokenData is not base64. Nothing was applied.")
            }
            clientToken = data
        }
        return ModifyRecordsPlan(
            caller: caller, zoneID: zoneID, operations: operations, atomic: request.atomic ?? true, clientToken: clientToken,
            desiredKeys: request.desiredKeys)
    }

    /// The engine step of `records/modify`.
    package func applyModifyRecords(_ plan: ModifyRecordsPlan, _ db: DatabaseID) throws(CloudError) -> [Result<RecordOperationResult, CloudError>] {
        try core.engine.modifyRecords(
            caller: plan.caller, database: db, zoneID: plan.zoneID, operations: plan.operations, atomic: plan.atomic,
            clientChangeTokenData: plan.clientToken)
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
            return APIAnswer(body: try WireJSON.encode(WireRecordsResponse(records: items)), changedState: modifyRecordsChanged(results, plan))
        } catch {
            return .error(error)
        }
    }

    private func modifySubscriptions(_ call: APICall, _ db: DatabaseID, caller: Caller) throws(CloudError) -> APIAnswer {
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

    // MARK: /device/1/{container}/{environment}/tokens/{create|register}

    package func device(_ call: APICall, _ parts: [String]) throws(CloudError) -> APIAnswer {
        guard parts.count == 6, parts[1] == "1", parts[4] == "tokens" else {
            return .notFound(
                "There is no '\(call.path)'; device calls are /device/1/{container}/{environment}/tokens/create and tokens/register, and GET on the webcourierURL that tokens/create gives.")
        }
        let container = try container(parts[2])
        let environment = try environment(parts[3])
        try checkMethod(call)
        let caller = try requireUser(call, "Registering for push notifications")
        try core.engine.checkCaller(caller)
        let request = try decode(WireAPNsToken.self, call)
        if let apns = request.apnsEnvironment, ContainerEnvironment(rawValue: apns) == nil {
            throw CloudError(.invalidArguments, "apnsEnvironment is '\(apns)'; use development or production.")
        }
        switch parts[5] {
        case "create":
            // The push channel belongs to its creator from now on: only they
            // can register and poll it. Its ID is no secret (it shows in
            // records' `modified.deviceID`); it follows from the call, so a
            // replay of the journal makes the same one.
            let token = newDeviceID(user: caller.user, container: container, environment: environment)
            try core.engine.addUser(caller.user)
            try core.push.registerDevice(token, user: caller.user, container: container, environment: environment, now: now)
            return try encode(
                WireAPNsToken(
                    apnsEnvironment: request.apnsEnvironment ?? environment.rawValue, apnsToken: token,
                    webcourierURL: Self.webcourierURL(baseURL: baseURL, container: container, environment: environment, token: token)),
                changed: true)
        case "register":
            guard let token = request.apnsToken else {
                throw CloudError(.invalidArguments, "tokens/register needs 'apnsToken' (from tokens/create).")
            }
            switch core.push.owner(ofDevice: token) {
            case caller.user?:
                break
            case nil:
                throw CloudError(
                    .unknownItem, "There is no push channel '\(token)' in this server: make one with tokens/create, then register the apnsToken it gives.")
            default:
                throw CloudError(
                    .permissionFailure, "The push channel '\(token)' belongs to another user; make your own with tokens/create.")
            }
            try core.engine.addUser(caller.user)
            try core.push.registerDevice(token, user: caller.user, container: container, environment: environment, now: now)
            return try encode(
                WireAPNsToken(
                    apnsEnvironment: request.apnsEnvironment ?? environment.rawValue, apnsToken: token,
                    webcourierURL: Self.webcourierURL(baseURL: baseURL, container: container, environment: environment, token: token)),
                changed: true)
        default:
            return .notFound("There is no device operation 'tokens/\(parts[5])'; use tokens/create or tokens/register.")
        }
    }

    /// A new device ID: 32 hex digits mixed from the time, the caller and
    /// the container, unique in this server.
    private func newDeviceID(user: String, container: String, environment: ContainerEnvironment) -> String {
        var attempt: UInt64 = 0
        while true {
            var crc = CRC32()
            crc.add("\(now) \(attempt) \(user) \(container) \(environment.rawValue)")
            var mixer = SeededRandom(seed: UInt64(bitPattern: now) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(crc.value) << 20 ^ attempt)
            let id = (0..<2).map { _ in String(format: "%016llx", mixer.next()) }.joined()
            if core.push.owner(ofDevice: id) == nil { return id }
            attempt += 1
        }
    }

    package static func webcourierURL(baseURL: String, container: String, environment: ContainerEnvironment, token: String) -> String {
        let escaped = container.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? container
        return "\(baseURL)/device/1/\(escaped)/\(environment.rawValue)/webcourier/\(token)"
    }

    // MARK: /admin/1/{container}/{environment}/{operation}

    private func admin(_ call: APICall, _ parts: [String]) throws(CloudError) -> APIAnswer {
        guard parts.count == 5, parts[1] == "1" else {
            return .notFound("There is no '\(call.path)'; admin calls are /admin/1/{container}/{environment}/{operation}.")
        }
        let container = try container(parts[2])
        let environment = try environment(parts[3])
        try checkMethod(call)
        let engine = core.engine
        // Whole-server calls: the server admin credential, and nothing else.
        switch parts[4] {
        case "export", "import", "reset", "faults":
            guard call.isServerAdmin else {
                throw CloudError(
                    .permissionFailure,
                    "admin/\(parts[4]) acts on every user's data, so it needs the server's admin token (printed by syncscope serve at start-up and kept in admin.json in its data folder), sent as 'Authorization: Bearer ADMIN_TOKEN'; a user's web auth token is not enough.")
            }
        default:
            break
        }
        switch parts[4] {
        case "faults":
            return try faults(call)
        case "export":
            var file = engine.exportState()
            file.push = core.push.exportState(includingDevices: false, reseeding: false)
            // Web auth tokens stay in the server: an export carries none (an import keeps the server's).
            for index in file.users.indices { file.users[index].webAuthToken = "" }
            return try encodeAnswer(file, prettyPrinted: true, changed: false, tokenIn: nil, tokenOut: nil)
        case "import":
            return try importState(call)
        case "reset":
            engine.resetState()
            core.push.resetState()
            return try encode(WireEmpty(), changed: true)
        default:
            break
        }
        // A user's own admin calls: they act on the caller's data only.
        let caller = try requireUser(call, "admin/\(parts[4])")
        try core.engine.checkCaller(caller)
        func db(_ text: String?, default scope: DatabaseScope = .private) throws(CloudError) -> DatabaseID {
            DatabaseID(container: container, environment: environment, scope: try text.map { (t) throws(CloudError) in try self.scope(t) } ?? scope)
        }
        switch parts[4] {
        case "purgeZone":
            let request = try decode(WirePurgeZoneRequest.self, call)
            try engine.purgeRecordZone(caller: caller, database: try db(request.database), zoneID: RecordZoneID(request.zoneID))
            return try encode(WireEmpty(), changed: true)
        case "encryptedDataReset":
            try engine.encryptedDataReset(caller: caller, database: try db(nil))
            return try encode(WireEmpty(), changed: true)
        case "compact":
            let request = try decode(WireCompactRequest.self, call)
            let scope = try request.database.map { (t) throws(CloudError) in try self.scope(t) }
            try engine.compactHistory(
                caller: caller, database: try db(nil), scope: scope, zoneID: request.zoneID.map(RecordZoneID.init), keepLast: request.keepLast ?? 0)
            return try encode(WireEmpty(), changed: true)
        default:
            return .notFound("There is no admin operation '\(parts[4])'. Known: purgeZone, encryptedDataReset, compact, export, import, reset.")
        }
    }

    /// Replaces the whole state with a state file (`admin/import`, `--import`).
    private func importState(_ call: APICall) throws(CloudError) -> APIAnswer {
        let file = try decode(ServerStateFile.self, call)
        // Check the push part on a scratch push layer first, so that a bad
        // subscription cannot leave the engine's part imported alone.
        try PushEngine(configuration: core.push.configuration).importState(file.push, restoringDevices: false)
        try core.engine.importState(file, keepingHistory: false)
        try core.push.importState(file.push, restoringDevices: false)
        return try encode(WireEmpty(), changed: true)
    }

    // MARK: /internal/… (the server's own calls, kept in the journal)

    private func internalCall(_ call: APICall, _ parts: [String]) throws(CloudError) -> APIAnswer {
        switch parts.dropFirst().first {
        case "addUser":
            let request = try decode(DispatcherInternal.AddUser.self, call)
            try core.engine.addUser(request.name)
            return try encode(WireEmpty(), changed: true)
        case "online":
            let request = try decode(DispatcherInternal.DeviceOnline.self, call)
            try core.push.setOnline(request.deviceID, request.online, now: now)
            return try encode(WireEmpty(), changed: true)
        case "import":
            return try importState(call)
        case "acknowledge":
            let request = try decode(DispatcherInternal.Acknowledge.self, call)
            core.push.deliverDue(now: now)
            let removed = try core.push.acknowledgeNotifications(for: request.deviceID, notificationIDs: Set(request.notificationIDs))
            return try encode(WireEmpty(), changed: removed > 0)
        default:
            return .notFound("There is no internal call '\(call.path)'.")
        }
    }
}

/// The bodies of the server's own calls (`/internal/…`).
package enum DispatcherInternal {
    package struct AddUser: Codable { var name: String }
    package struct DeviceOnline: Codable { var deviceID: String; var online: Bool }
    /// The device certainly has these notifications: they leave its queue.
    package struct Acknowledge: Codable { var deviceID: String; var notificationIDs: [String] }
}

