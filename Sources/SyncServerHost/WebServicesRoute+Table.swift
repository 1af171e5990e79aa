import Foundation
import SyncCore
import SyncWire
import SyncServer

extension WebServicesRoute {
    private typealias Field = BodySchema.Field

    /// Every route, once. The order is the order of the OpenAPI document and
    /// of a 404's list of known operations.
    package static let table: [WebServicesRoute] = [
        // MARK: /database/1/{container}/{environment}/{database}/…
        WebServicesRoute(
            .database, "zones/list", [.get, .post], access: .read, summary: "Lists the zones of a database.",
            handling: .dispatcher(
                { (d, call, a) throws(CloudError) in try d.listZones(call, a) },
                prepare: { (call, a, _) throws(CloudError) in .listZones(a.database, try APIDispatcher.publicOrSignedIn(call, a, "Listing zones")) })),
        WebServicesRoute(
            .database, "zones/lookup", .post, body: .json(WireZonesLookupRequest.self, [.need("zones", .array(.object([Field("zoneID", .zoneID), Field("zoneName", .string)])))]), access: .read,
            summary: "Looks zones up by ID.", handling: .dispatcher({ (d, call, a) throws(CloudError) in try d.lookupZones(call, a) })),
        WebServicesRoute(
            .database, "zones/modify", .post, body: .json(WireZonesModifyRequest.self, [.need("operations", .array(.object([.need("operationType", .string), .need("zone", .object([.need("zoneID", .zoneID)]))])))]), access: .write,
            errorStatuses: [409], summary: "Creates and deletes zones.",
            handling: .dispatcher({ (d, call, a) throws(CloudError) in try d.modifyZones(call, a) })),
        WebServicesRoute(
            .database, "zones/changes", .post, body: .json(WireZonesChangesRequest.self, [Field("syncToken", .string), Field("resultsLimit", .integer)]), access: .read,
            errorStatuses: [410], summary: "The zones that changed since a database token.",
            handling: .dispatcher({ (d, call, a) throws(CloudError) in try d.zonesChanges(call, a.database, caller: try d.requireUser(call, "Fetching zone changes")) })),
        WebServicesRoute(
            .database, "zones/share", .post, body: .json(WireZoneShareRequest.self, [.need("zoneID", .zoneID), .need("operationType", .string), .need("participants", .strings)]),
            access: .write, summary: "Shares a zone with other users, or revokes the share.",
            handling: .dispatcher({ (d, call, a) throws(CloudError) in try d.shareZone(call, a) })),
        WebServicesRoute(
            .database, "records/modify", .post,
            body: .decodedByRoute(
                WireRecordsModifyRequest.self,
                [
                    .need("operations", .array(.object([.need("operationType", .string), .need("record", .object([Field("recordName", .string), Field("recordType", .string), Field("recordChangeTag", .string), Field("fields", .object([]))]))]))),
                    Field("zoneID", .zoneID), Field("atomic", .boolean), Field("desiredKeys", .strings), Field("clientChangeTokenData", .string),
                ]),
            access: .write, errorStatuses: [409], summary: "Saves and deletes records.",
            handling: .dispatcher(
                { (d, call, a) throws(CloudError) in try d.modifyRecords(call, a.database, caller: try d.requireUser(call, "Saving records")) },
                prepare: { (call, a, modifyPlan) throws(CloudError) in
                    .modifyRecords(a.database, try modifyPlan(try APIDispatcher.signedInUser(call, "Saving records")))
                })),
        WebServicesRoute(
            .database, "records/resolve", .post,
            body: .json(WireShareGUIDsRequest.self, [.need("shortGUIDs", .array(.object([.need("value", .string), Field("shouldFetchRootRecord", .boolean), Field("rootRecordDesiredKeys", .strings)])))]),
            access: .read, summary: "Finds shares by short GUID: the share record, its zone, its owner and the caller's place in it.",
            handling: .dispatcher({ (d, call, a) throws(CloudError) in try d.resolveShares(call, a, accepting: false) })),
        WebServicesRoute(
            .database, "records/accept", .post,
            body: .json(WireShareGUIDsRequest.self, [.need("shortGUIDs", .array(.object([.need("value", .string), Field("shouldFetchRootRecord", .boolean), Field("rootRecordDesiredKeys", .strings)])))]),
            access: .write, summary: "Accepts shares by short GUID: each share's zone appears in the caller's shared database.",
            handling: .dispatcher({ (d, call, a) throws(CloudError) in try d.resolveShares(call, a, accepting: true) })),
        WebServicesRoute(
            .database, "records/lookup", .post,
            body: .decodedByRoute(
                WireRecordsLookupRequest.self,
                [.need("records", .array(.object([.need("recordName", .string)]))), Field("zoneID", .zoneID), Field("desiredKeys", .strings), Field("numbersAsStrings", .boolean)]), access: .read,
            query: [.currentSyncToken], summary: "Looks records up by name.",
            handling: .dispatcher(
                { (d, call, a) throws(CloudError) in
                    try d.lookupRecords(call, a.database, caller: try APIDispatcher.publicOrSignedIn(call, a, "Looking up records"))
                },
                prepare: { (call, a, _) throws(CloudError) in try APIDispatcher.prepareLookupRecords(call, a) })),
        WebServicesRoute(
            .database, "records/query", .post,
            body: .decodedByRoute(
                WireRecordsQueryRequest.self,
                [
                    .need("query", .object([.need("recordType", .string), Field("filterBy", .array(.object([]))), Field("sortBy", .array(.object([])))])),
                    Field("zoneID", .zoneID), Field("zoneWide", .boolean), Field("resultsLimit", .integer), Field("continuationMarker", .string),
                    Field("desiredKeys", .strings), Field("numbersAsStrings", .boolean),
                ]),
            access: .read, query: [.currentSyncToken], summary: "Queries records by type, filters and sort order.",
            handling: .dispatcher(
                { (d, call, a) throws(CloudError) in
                    try d.queryRecords(call, a.database, caller: try APIDispatcher.publicOrSignedIn(call, a, "Querying records"))
                },
                prepare: { (call, a, _) throws(CloudError) in try APIDispatcher.prepareQueryRecords(call, a) })),
        WebServicesRoute(
            .database, "records/changes", .post,
            body: .json(
                WireRecordsChangesRequest.self,
                [
                    .need("zoneID", .zoneID), Field("syncToken", .string), Field("resultsLimit", .integer), Field("desiredKeys", .strings),
                    Field("desiredRecordTypes", .strings), Field("numbersAsStrings", .boolean),
                ]),
            access: .read, errorStatuses: [410], summary: "One zone's record changes since a token (the single-zone shape).",
            handling: .dispatcher({ (d, call, a) throws(CloudError) in
                try d.recordsChanges(call, a.database, caller: try d.requireUser(call, "Fetching record changes"))
            })),
        WebServicesRoute(
            .database, "changes/database", .post,
            body: .decodedByRoute(WireDatabaseChangesRequest.self, [Field("syncToken", .string), Field("resultsLimit", .integer)]), access: .read, errorStatuses: [410],
            summary: "The zones that changed since a database token.",
            handling: .dispatcher(
                { (d, call, a) throws(CloudError) in try d.databaseChanges(call, a) },
                prepare: { (call, a, _) throws(CloudError) in
                    let request = try APIDispatcher.decodeBody(WireDatabaseChangesRequest.self, call)
                    return .databaseChanges(a.database, try APIDispatcher.signedInUser(call, "Fetching database changes"), request)
                })),
        WebServicesRoute(
            .database, "changes/zone", .post,
            body: .decodedByRoute(
                WireZoneChangesRequest.self,
                [
                    .need(
                        "zones",
                        .array(.object([
                            .need("zoneID", .zoneID), Field("syncToken", .string), Field("resultsLimit", .integer), Field("desiredKeys", .strings),
                            Field("desiredRecordTypes", .strings), Field("numbersAsStrings", .boolean),
                        ]))),
                    Field("resultsLimit", .integer), Field("desiredKeys", .strings), Field("desiredRecordTypes", .strings),
                    Field("numbersAsStrings", .boolean),
                ]),
            access: .read, errorStatuses: [410], summary: "The record changes of zones since their tokens.",
            handling: .dispatcher(
                { (d, call, a) throws(CloudError) in try d.zoneChanges(call, a.database, caller: try d.requireUser(call, "Fetching zone changes")) },
                prepare: { (call, a, _) throws(CloudError) in
                    let caller = try APIDispatcher.signedInUser(call, "Fetching zone changes")
                    let (request, requests) = try APIDispatcher.zoneChangesPlan(call)
                    return .zoneChanges(a.database, caller, request, requests)
                })),
        WebServicesRoute(
            .database, "subscriptions/modify", .post, body: .json(
                WireSubscriptionsModifyRequest.self,
                [.need("operations", .array(.object([.need("operationType", .string), .need("subscription", .object([.need("subscriptionID", .string), Field("subscriptionType", .string), Field("zoneID", .zoneID), Field("query", .object([])), Field("firesOn", .strings)]))])))]), access: .write,
            summary: "Creates, updates and deletes subscriptions.",
            handling: .dispatcher({ (d, call, a) throws(CloudError) in
                try d.modifySubscriptions(call, a.database, caller: try d.requireUser(call, "Changing subscriptions"))
            })),
        WebServicesRoute(
            .database, "subscriptions/list", [.get, .post], access: .read, summary: "Lists the caller's subscriptions.",
            handling: .dispatcher({ (d, call, a) throws(CloudError) in try d.subscriptions(call, a, lookingUp: false) })),
        WebServicesRoute(
            .database, "subscriptions/lookup", .post, body: .json(WireSubscriptionsLookupRequest.self, [.need("subscriptions", .array(.object([.need("subscriptionID", .string)])))]), access: .read,
            summary: "Looks subscriptions up by ID.",
            handling: .dispatcher({ (d, call, a) throws(CloudError) in try d.subscriptions(call, a, lookingUp: true) })),
        WebServicesRoute(
            .database, "assets/upload", .post, body: .json(
                WireAssetsUploadRequest.self,
                [Field("zoneID", .zoneID), .need("tokens", .array(.object([.need("recordType", .string), .need("fieldName", .string), Field("recordName", .string)])))]), access: .read,
            summary: "Hands out upload URLs for asset files.",
            handling: .dispatcher({ (d, call, a) throws(CloudError) in
                try d.assetsUpload(call, a.database, caller: try d.requireUser(call, "Uploading assets"))
            })),

        // MARK: /database/1/{container}/{environment}/{database}/users/…
        WebServicesRoute(
            .users, "users/current", [.get, .post], access: .read, summary: "The caller, as a user.",
            handling: .dispatcher({ (d, call, _) throws(CloudError) in try d.currentUser(call) })),
        WebServicesRoute(
            .users, "users/caller", [.get, .post], access: .read, summary: "The caller, as a user identity.",
            handling: .dispatcher({ (d, call, _) throws(CloudError) in try d.callerIdentity(call) })),
        WebServicesRoute(
            .users, "users/discover", [.get, .post], body: .json(WireUsersDiscoverRequest.self, [.need("lookupInfos", .array(.lookupInfo))], optional: true),
            access: .read, summary: "Discoverable users: every one (GET), or those the lookup infos name (POST).",
            handling: .dispatcher({ (d, call, _) throws(CloudError) in try d.discoverUsers(call) })),
        WebServicesRoute(
            .users, "users/lookup/email", .post, body: .json(WireUsersLookupRequest.self, [.need("users", .array(.lookupInfo))]), access: .read,
            summary: "Users by e-mail address.", handling: .dispatcher({ (d, call, _) throws(CloudError) in try d.lookUpUsers(call, byEmail: true) })),
        WebServicesRoute(
            .users, "users/lookup/id", .post, body: .json(WireUsersLookupRequest.self, [.need("users", .array(.lookupInfo))]), access: .read,
            summary: "Users by user record name.", handling: .dispatcher({ (d, call, _) throws(CloudError) in try d.lookUpUsers(call, byEmail: false) })),
        WebServicesRoute(
            .users, "users/lookup/contacts", [.get, .post], access: .read, summary: "The caller's contacts: the server's other users.",
            handling: .dispatcher({ (d, call, _) throws(CloudError) in try d.contacts(call) })),

        // MARK: Push tokens and the web courier
        WebServicesRoute(
            .pushTokens, "tokens/create", .post, body: .json(WireAPNsToken.self, [Field("apnsEnvironment", .string)]), access: .write,
            summary: "Makes a push channel (a device) and its webcourierURL.",
            handling: .dispatcher({ (d, call, a) throws(CloudError) in try d.pushToken(call, a, creating: true) })),
        WebServicesRoute(
            .pushTokens, "tokens/register", .post, body: .json(WireAPNsToken.self, [Field("apnsEnvironment", .string), .need("apnsToken", .string)]), access: .write,
            summary: "Registers a push channel made with tokens/create.",
            handling: .dispatcher({ (d, call, a) throws(CloudError) in try d.pushToken(call, a, creating: false) })),
        WebServicesRoute(
            .devicePushTokens, "tokens/create", .post, body: .json(WireAPNsToken.self, [Field("apnsEnvironment", .string)]), access: .write,
            summary: "tokens/create under /device/1/ (an alias).",
            handling: .dispatcher({ (d, call, a) throws(CloudError) in try d.pushToken(call, a, creating: true) })),
        WebServicesRoute(
            .devicePushTokens, "tokens/register", .post, body: .json(WireAPNsToken.self, [Field("apnsEnvironment", .string), .need("apnsToken", .string)]),
            access: .write, summary: "tokens/register under /device/1/ (an alias).",
            handling: .dispatcher({ (d, call, a) throws(CloudError) in try d.pushToken(call, a, creating: false) })),
        WebServicesRoute(
            .webcourier, "webcourier", .get, access: .read,
            query: [
                QueryParameter(name: "timeout", type: "number", summary: "Seconds to wait for a notification (default 30, at most 300).", minimum: 0),
                QueryParameter(
                    name: "lastNotificationID", type: "string", summary: "The last notification the device has: it and those before it leave the queue.",
                    maxLength: 255),
            ],
            summary: "Long-polls a push channel: answers its next notification, or an empty body when the timeout passes.",
            handling: .longPoll),

        // MARK: /admin/1/{container}/{environment}/…
        WebServicesRoute(
            .admin, "purgeZone", .post, body: .json(WirePurgeZoneRequest.self, [Field("database", .string), .need("zoneID", .zoneID)]), access: .write,
            summary: "Removes one of the caller's zones and its history at once.",
            handling: .dispatcher({ (d, call, a) throws(CloudError) in try d.purgeZone(call, a) })),
        WebServicesRoute(
            .admin, "encryptedDataReset", .post, access: .write, summary: "Drops the caller's encrypted fields, as a lost keychain does.",
            handling: .dispatcher({ (d, call, a) throws(CloudError) in try d.encryptedDataReset(call, a) })),
        WebServicesRoute(
            .admin, "compact", .post, body: .json(WireCompactRequest.self, [Field("database", .string), Field("zoneID", .zoneID), Field("keepLast", .integer)]), access: .write,
            summary: "Compacts the caller's change history (older tokens expire).",
            handling: .dispatcher({ (d, call, a) throws(CloudError) in try d.compactHistory(call, a) })),
        WebServicesRoute(
            .admin, "export", .post, access: .read, summary: "The whole server's state as a state file (server admin token).",
            handling: .dispatcher({ (d, call, _) throws(CloudError) in try d.exportState(call) })),
        WebServicesRoute(
            .admin, "import", .post, body: .json(ServerStateFile.self, [
                    .need("format", .string), .need("version", .integer), Field("historyID", .string), Field("nextChangeTag", .integer),
                    Field("randomSeed", .string), .need("users", .array(.object([]))), .need("containers", .array(.object([]))), Field("push", .object([])),
                    Field("assets", .array(.object([]))),
                ]), access: .write,
            summary: "Replaces the whole server's state with a state file (server admin token).",
            handling: .dispatcher({ (d, call, _) throws(CloudError) in try d.importState(call, serverAdminOnly: true) })),
        WebServicesRoute(
            .admin, "reset", .post, access: .write, summary: "Empties the whole server (server admin token).",
            handling: .dispatcher({ (d, call, _) throws(CloudError) in try d.resetState(call) })),
        WebServicesRoute(
            .admin, "schema", .post, access: .read, summary: "The environment's schema in CloudKit's schema language (server admin token).",
            handling: .dispatcher({ (d, call, a) throws(CloudError) in try d.exportSchema(call, a) })),
        WebServicesRoute(
            .admin, "importSchema", .post, body: .json(WireSchemaImportRequest.self, [.need("schema", .string)]), access: .write,
            summary: "Replaces the environment's schema with a text schema; production only grows (server admin token).",
            handling: .dispatcher({ (d, call, a) throws(CloudError) in try d.importSchema(call, a) })),
        WebServicesRoute(
            .admin, "deploySchema", .post, body: .json(WireSchemaDeployRequest.self, [Field("dryRun", .boolean)]), access: .write,
            summary: "Copies the development schema to production, refusing what would lose production data (server admin token).",
            handling: .dispatcher({ (d, call, a) throws(CloudError) in try d.deploySchema(call, a) })),
        WebServicesRoute(
            .admin, "users", [.get, .post], access: .read,
            summary: "The server's users by name, without their tokens (server admin token); read a user's databases with X-SyncScope-Read-As.",
            handling: .dispatcher({ (d, call, _) throws(CloudError) in try d.listUsers(call) })),
        WebServicesRoute(
            .admin, "faults", .post, body: .decodedByRoute(WireFaultsRequest.self, [Field("operation", .string), Field("rules", .array(.object([])))]), access: .write,
            journaled: false, summary: "Lists, adds, removes or clears fault rules (server admin token; not journaled).",
            handling: .dispatcher({ (d, call, _) throws(CloudError) in try d.faults(call) })),
        WebServicesRoute(
            .admin, "serverKeys", .post, body: .json(WireServerKey.self, [.need("keyID", .string), .need("publicKey", .string)]), access: .write,
            summary: "Adds a server-to-server key for the public database (server admin token); it lasts until this server stops.",
            handling: .dispatcher({ (d, call, _) throws(CloudError) in try d.addServerKey(call) })),
        WebServicesRoute(
            .admin, "events", .get, access: .read,
            query: [
                QueryParameter(name: "after", type: "number", summary: "The feed's `next` from the previous answer (default 0: every event the feed still holds).", minimum: 0),
                QueryParameter(name: "timeout", type: "number", summary: "Seconds to wait for an event when none is newer than `after` (default 0, at most 300).", minimum: 0),
                QueryParameter(name: "limit", type: "number", summary: "Events at most in one answer (default 1000).", minimum: 1),
                QueryParameter(name: "bodies", type: "boolean", summary: "Adds each request's body and answer (true, True, 1 or yes)."),
                QueryParameter(name: "inspectorReads", type: "boolean", summary: "Keeps the requests inspectors marked as theirs (X-SyncScope-Inspector) in the answer."),
            ],
            summary: "Long-polls the server's event feed: requests, pushes, changes (server admin token).", handling: .eventFeed),
        WebServicesRoute(
            .admin, "clients", [.get, .post], body: .json(WireClientRename.self, [.need("client", .string), .need("name", .string)], optional: true), access: .read,
            summary: "The server's clients and their short names; a POST renames one (server admin token).", handling: .eventFeed),

        // MARK: /assets/1/{container}/{environment}/…
        WebServicesRoute(
            .assetFiles, "upload", .post, body: .bytes, access: .write, summary: "Stores an asset file's bytes (the URL assets/upload gives).",
            handling: .dispatcher({ (d, call, _) throws(CloudError) in try d.storeAssetFile(call) })),
        WebServicesRoute(
            .assetFiles, "download", .get, access: .read, summary: "An asset file's bytes (an ASSET field's downloadURL).",
            handling: .dispatcher({ (d, _, a) throws(CloudError) in d.assetFile(checksum: a.last) })),

        // MARK: /internal/… (the server's own calls; never from the network)
        WebServicesRoute(
            .serverCall, "addUser", .post, body: .json(DispatcherInternal.AddUser.self, [.need("name", .string)]), access: .write,
            summary: "Adds a user.", handling: .dispatcher({ (d, call, _) throws(CloudError) in try d.addUser(call) })),
        WebServicesRoute(
            .serverCall, "online", .post, body: .json(DispatcherInternal.DeviceOnline.self, [.need("deviceID", .string), .need("online", .boolean)]), access: .write,
            summary: "Takes a device online or offline.", handling: .dispatcher({ (d, call, _) throws(CloudError) in try d.setOnline(call) })),
        WebServicesRoute(
            .serverCall, "import", .post, body: .json(ServerStateFile.self, [
                    .need("format", .string), .need("version", .integer), Field("historyID", .string), Field("nextChangeTag", .integer),
                    Field("randomSeed", .string), .need("users", .array(.object([]))), .need("containers", .array(.object([]))), Field("push", .object([])),
                    Field("assets", .array(.object([]))),
                ]), access: .write,
            summary: "Imports a state file (serve --import).",
            handling: .dispatcher({ (d, call, _) throws(CloudError) in try d.importState(call, serverAdminOnly: false) })),
        WebServicesRoute(
            .serverCall, "importSchema", .post,
            body: .json(DispatcherInternal.ImportSchema.self, [.need("container", .string), .need("environment", .string), .need("schema", .string)]),
            access: .write, summary: "Imports a schema file into one environment (serve --schema).",
            handling: .dispatcher({ (d, call, _) throws(CloudError) in try d.importSchemaFile(call) })),
        WebServicesRoute(
            .serverCall, "acknowledge", .post, body: .json(DispatcherInternal.Acknowledge.self, [.need("deviceID", .string), .need("notificationIDs", .strings)]),
            access: .write, summary: "A device has these notifications: they leave its queue.",
            handling: .dispatcher({ (d, call, _) throws(CloudError) in try d.acknowledge(call) })),

        // MARK: /share/{shortGUID} (a share's URL)
        WebServicesRoute(
            .sharePage, "share", .get, access: .read,
            summary: "A share's URL: which share it is (owner, zone, root record, public permission) and how to accept it (no token needed; our extension).",
            handling: .dispatcher({ (d, _, a) throws(CloudError) in d.sharePage(shortGUID: a.last) })),

        // MARK: The document of this API
        WebServicesRoute(
            .document, "openapi.json", .get, access: .read, summary: "This API's OpenAPI 3.1 document (no token needed).", handling: .document),
    ]
}
