import Foundation
import SyncCore
import SyncWire
import SyncServer

/// `/admin/1/{container}/{environment}/{operation}`: a user's own admin calls
/// (`purgeZone`, `encryptedDataReset`, `compact`), acting on the caller's data
/// only, and the whole-server ones (`export`, `import`, `reset`, `faults`),
/// which take the server admin credential and nothing else; and the server's
/// own calls (`/internal/…`, kept in the journal).
extension APIDispatcher {
    /// Whole-server calls: the server admin credential, and nothing else.
    package static func requireServerAdmin(_ call: APICall, _ operation: String) throws(CloudError) {
        guard call.isServerAdmin else {
            throw CloudError(
                .permissionFailure,
                "admin/\(operation) acts on every user's data, so it needs the server's admin token (printed by syncscope serve at start-up and kept in admin.json in its data folder), sent as 'Authorization: Bearer ADMIN_TOKEN'; a user's web auth token is not enough.")
        }
    }

    /// The caller of a user's own admin call, and the database it names (private unless it says).
    private func adminCaller(_ call: APICall, _ operation: String) throws(CloudError) -> Caller {
        let caller = try requireUser(call, "admin/\(operation)")
        try core.engine.checkCaller(caller)
        return caller
    }

    private func database(_ arguments: RouteArguments, _ text: String?) throws(CloudError) -> DatabaseID {
        DatabaseID(
            container: arguments.container, environment: arguments.environment,
            scope: try text.map { (t) throws(CloudError) in try Self.parseScope(t) } ?? .private)
    }

    package func purgeZone(_ call: APICall, _ arguments: RouteArguments) throws(CloudError) -> APIAnswer {
        let caller = try adminCaller(call, "purgeZone")
        let request = try decode(WirePurgeZoneRequest.self, call)
        try core.engine.purgeRecordZone(caller: caller, database: try database(arguments, request.database), zoneID: RecordZoneID(request.zoneID))
        return try encode(WireEmpty(), changed: true)
    }

    package func encryptedDataReset(_ call: APICall, _ arguments: RouteArguments) throws(CloudError) -> APIAnswer {
        let caller = try adminCaller(call, "encryptedDataReset")
        try core.engine.encryptedDataReset(caller: caller, database: try database(arguments, nil))
        return try encode(WireEmpty(), changed: true)
    }

    package func compactHistory(_ call: APICall, _ arguments: RouteArguments) throws(CloudError) -> APIAnswer {
        let caller = try adminCaller(call, "compact")
        let request = try decode(WireCompactRequest.self, call)
        let scope = try request.database.map { (t) throws(CloudError) in try Self.parseScope(t) }
        try core.engine.compactHistory(
            caller: caller, database: try database(arguments, nil), scope: scope, zoneID: request.zoneID.map(RecordZoneID.init),
            keepLast: request.keepLast ?? 0)
        return try encode(WireEmpty(), changed: true)
    }

    package func exportState(_ call: APICall) throws(CloudError) -> APIAnswer {
        try Self.requireServerAdmin(call, "export")
        var file = core.engine.exportState()
        file.push = core.push.exportState(includingDevices: false, reseeding: false)
        // Web auth tokens stay in the server: an export carries none (an import keeps the server's).
        for index in file.users.indices { file.users[index].webAuthToken = "" }
        return try encodeAnswer(file, prettyPrinted: true, changed: false, tokenIn: nil, tokenOut: nil)
    }

    /// `users`: every user's name, for a watcher (no token leaves the server).
    package func listUsers(_ call: APICall) throws(CloudError) -> APIAnswer {
        try Self.requireServerAdmin(call, "users")
        return try encode(WireServerUsers(users: core.engine.users.map(\.name)), changed: false)
    }

    package func resetState(_ call: APICall) throws(CloudError) -> APIAnswer {
        try Self.requireServerAdmin(call, "reset")
        core.engine.resetState()
        core.push.resetState()
        return try encode(WireEmpty(), changed: true)
    }

    /// Replaces the whole state with a state file (`admin/import`, and `--import` as a server call).
    package func importState(_ call: APICall, serverAdminOnly: Bool) throws(CloudError) -> APIAnswer {
        if serverAdminOnly { try Self.requireServerAdmin(call, "import") }
        let file = try decode(ServerStateFile.self, call)
        // Check the push part on a scratch push layer first, so that a bad
        // subscription cannot leave the engine's part imported alone.
        try PushEngine(configuration: core.push.configuration).importState(file.push, restoringDevices: false)
        try core.engine.importState(file, keepingHistory: false)
        try core.push.importState(file.push, restoringDevices: false)
        return try encode(WireEmpty(), changed: true)
    }

    /// `serverKeys` `{"keyID", "publicKey"}`: a server-to-server key from now
    /// on. Its user (``ServerKeyRing/userName(ofKey:)``) is added in the step,
    /// so the journal keeps it; the key itself is a setting of the running
    /// server, taken by the node that answers the call until it stops (a
    /// replay does not add it again): `serve --server-key` makes lasting ones.
    package func addServerKey(_ call: APICall) throws(CloudError) -> APIAnswer {
        try Self.requireServerAdmin(call, "serverKeys")
        let request = try decode(WireServerKey.self, call)
        let key = try ServerKeyRing.publicKey(keyID: request.keyID, pem: request.publicKey ?? "")
        let user = ServerKeyRing.userName(ofKey: request.keyID)
        try core.engine.addUser(user)
        if answering { serverKeys?.add(request.keyID, key) }
        return try encode(WireServerKey(keyID: request.keyID, userRecordName: user), changed: true)
    }

    // MARK: /internal/… (the server's own calls, kept in the journal)

    package func addUser(_ call: APICall) throws(CloudError) -> APIAnswer {
        let request = try decode(DispatcherInternal.AddUser.self, call)
        try core.engine.addUser(request.name)
        return try encode(WireEmpty(), changed: true)
    }

    package func setOnline(_ call: APICall) throws(CloudError) -> APIAnswer {
        let request = try decode(DispatcherInternal.DeviceOnline.self, call)
        try core.push.setOnline(request.deviceID, request.online, now: now)
        return try encode(WireEmpty(), changed: true)
    }

    package func acknowledge(_ call: APICall) throws(CloudError) -> APIAnswer {
        let request = try decode(DispatcherInternal.Acknowledge.self, call)
        core.push.deliverDue(now: now)
        let removed = try core.push.acknowledgeNotifications(for: request.deviceID, notificationIDs: Set(request.notificationIDs))
        return try encode(WireEmpty(), changed: removed > 0)
    }
}
