import Foundation
import Synchronization
import SyncCore
import SyncWire
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `CloudService` over the HTTP API of `syncscope serve`, with URLSession.
///
/// One user (signed in with their web auth token), one container and
/// environment, and optionally one device: its ID goes with every request as
/// `X-SyncScope-Device`, so the server does not push a device its own
/// changes. The sync engine and the scenario runner work the same over this
/// as over the in-process simulated server.
public struct HTTPCloudService: CloudService {
    public let baseURL: URL
    public let webAuthToken: String
    public let userRecordName: String
    public let deviceID: String?
    public let container: String
    public let environment: ContainerEnvironment
    /// How long ``receivePushNotifications()`` waits for a notification, in
    /// seconds; 0 answers at once with what is there.
    public var pushWaitSeconds: Double
    /// Marks every request as an inspector's (`X-SyncScope-Inspector`): the
    /// server keeps them out of its request log and its event feed's answers.
    public var isInspector = false
    /// With the server admin token as ``webAuthToken``: reads the databases
    /// of this user, as the user (`X-SyncScope-Read-As`; reads only).
    public var readAs: String?
    /// Sent as `User-Agent` (else URLSession's own): `syncscope device` says
    /// its device's name there (``DeviceUserAgent``).
    public var userAgent: String?
    let session: URLSession
    private let registration: PushRegistration
    /// Signs every request with a server-to-server key instead of sending the
    /// web auth token (the public database only).
    public let serverKeySigner: ServerKeySigner?

    public init(
        baseURL: URL, webAuthToken: String, userRecordName: String, deviceID: String? = nil,
        container: String = "iCloud.com.example.SyncScope", environment: ContainerEnvironment = .development,
        pushWaitSeconds: Double = 0, session: URLSession = HTTPCloudService.sharedSession, serverKeySigner: ServerKeySigner? = nil
    ) {
        self.serverKeySigner = serverKeySigner
        self.baseURL = baseURL
        self.webAuthToken = webAuthToken
        self.userRecordName = userRecordName
        self.deviceID = deviceID
        self.container = container
        self.environment = environment
        self.pushWaitSeconds = pushWaitSeconds
        self.session = session
        registration = PushRegistration()
    }

    /// A session without caches or cookies, with room for many parallel requests.
    public static let sharedSession: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 64
        configuration.timeoutIntervalForRequest = 330
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSession(configuration: configuration)
    }()

    /// The same connection from a new device, whose ID the server makes
    /// (`tokens/create`); call ``registerForPushNotifications()`` next.
    public func withNewDevice() async throws -> HTTPCloudService {
        let created: WireAPNsToken = try await send(
            "POST", devicePath("tokens/create"), WireAPNsToken(apnsEnvironment: environment.rawValue))
        guard let token = created.apnsToken else {
            throw CloudError(.internalError, "tokens/create answered without an apnsToken.")
        }
        var device = HTTPCloudService(
            baseURL: baseURL, webAuthToken: webAuthToken, userRecordName: userRecordName, deviceID: token, container: container,
            environment: environment, pushWaitSeconds: pushWaitSeconds, session: session, serverKeySigner: serverKeySigner)
        device.userAgent = userAgent
        return device
    }

    // MARK: Paths and requests

    private static let pathSegment = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))

    var escapedContainer: String { container.addingPercentEncoding(withAllowedCharacters: Self.pathSegment) ?? container }

    func databasePath(_ scope: DatabaseScope, _ operation: String) -> String {
        "/database/1/\(escapedContainer)/\(environment.rawValue)/\(scope.rawValue)/\(operation)"
    }

    private func devicePath(_ operation: String) -> String {
        "/device/1/\(escapedContainer)/\(environment.rawValue)/\(operation)"
    }

    func adminPath(_ operation: String) -> String {
        "/admin/1/\(escapedContainer)/\(environment.rawValue)/\(operation)"
    }

    /// Sends a request and decodes the answer; a non-200 answer is thrown as its ``CloudError``.
    func send<Answer: Decodable>(_ method: String, _ path: String, _ body: (some Encodable)?, timeout: Double? = nil) async throws -> Answer {
        let data = try await sendRaw(method, path, body: try body.map { try WireJSON.encode($0) }, timeout: timeout)
        return try WireJSON.decode(Answer.self, from: data)
    }

    func sendRaw(_ method: String, _ pathAndQuery: String, body: Data?, timeout: Double? = nil, absolute: URL? = nil) async throws -> Data {
        guard let url = absolute ?? URL(string: baseURL.absoluteString.trimmingSuffix("/") + pathAndQuery) else {
            throw CloudError(.invalidArguments, "'\(pathAndQuery)' does not make a URL with \(baseURL).")
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        if let serverKeySigner {
            for header in serverKeySigner.headers(body: body ?? Data(), subpath: url.path(percentEncoded: true)) {
                request.setValue(header.value, forHTTPHeaderField: header.name)
            }
        } else {
            request.setValue("Bearer \(webAuthToken)", forHTTPHeaderField: "Authorization")
        }
        if let deviceID { request.setValue(deviceID, forHTTPHeaderField: "X-SyncScope-Device") }
        if isInspector { request.setValue("1", forHTTPHeaderField: "X-SyncScope-Inspector") }
        if let readAs { request.setValue(readAs, forHTTPHeaderField: "X-SyncScope-Read-As") }
        if let userAgent { request.setValue(userAgent, forHTTPHeaderField: "User-Agent") }
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = body
        }
        if let timeout { request.timeoutInterval = timeout }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw CloudError(.networkFailure, "The server at \(baseURL.absoluteString) could not be reached: \(error.localizedDescription)")
        }
        guard let http = response as? HTTPURLResponse else {
            throw CloudError(.networkFailure, "The server at \(baseURL.absoluteString) did not answer with HTTP.")
        }
        guard http.statusCode == 200 else {
            if let wire = try? WireJSON.decode(WireError.self, from: data) { throw CloudError(wire) }
            throw CloudError(.internalError, "The server answered HTTP \(http.statusCode) without an error body.")
        }
        return data
    }

    /// The zone with its owner filled in, as the server names it.
    func normalized(_ zoneID: RecordZoneID, _ scope: DatabaseScope) -> RecordZoneID {
        if scope == .public { return RecordZoneID(zoneName: zoneID.zoneName, ownerName: RecordZoneID.publicOwnerName) }
        if zoneID.ownerName.isEmpty || zoneID.ownerName == RecordZoneID.currentUserName {
            return RecordZoneID(zoneName: zoneID.zoneName, ownerName: userRecordName)
        }
        return zoneID
    }

    // MARK: Zones

    public func modifyRecordZones(
        in scope: DatabaseScope, saving: [RecordZoneID], deleting: [RecordZoneID]
    ) async throws -> [Result<RecordZone, CloudError>] {
        let operations = saving.map { WireZonesModifyRequest.Operation(operationType: "create", zone: WireZone(zoneID: WireZoneID($0))) }
            + deleting.map { WireZonesModifyRequest.Operation(operationType: "delete", zone: WireZone(zoneID: WireZoneID($0))) }
        let answer: WireZonesResponse = try await send("POST", databasePath(scope, "zones/modify"), WireZonesModifyRequest(operations: operations))
        let asked = saving + deleting
        return answer.zones.enumerated().map { index, item in
            switch item {
            case .success(let zone): .success(RecordZone(zoneID: RecordZoneID(zone.zoneID)))
            case .failure(let error): .failure(CloudError(error, zoneID: index < asked.count ? asked[index] : nil))
            }
        }
    }

    public func listRecordZones(in scope: DatabaseScope) async throws -> [ZoneListing] {
        let answer: WireZonesResponse = try await send("GET", databasePath(scope, "zones/list"), Optional<WireEmpty>.none)
        return try answer.zones.map { item in
            switch item {
            case .success(let zone): ZoneListing(zoneID: RecordZoneID(zone.zoneID), syncToken: zone.syncToken)
            case .failure(let error): throw CloudError(error)
            }
        }
    }

    // MARK: Records

    public func modifyRecords(
        in scope: DatabaseScope, zoneID: RecordZoneID, operations: [RecordOperation], atomic: Bool, clientChangeTokenData: Data?
    ) async throws -> [Result<RecordOperationResult, CloudError>] {
        let zone = normalized(zoneID, scope)
        let wireOperations = operations.map { operation in
            let record = operation.type.isDelete
                ? WireRecord(
                    recordName: operation.record.recordID.recordName,
                    recordType: operation.record.recordType.isEmpty ? nil : operation.record.recordType,
                    recordChangeTag: operation.record.recordChangeTag)
                : WireRecord(operation.record)
            return WireRecordsModifyRequest.Operation(operationType: operation.type.rawValue, record: record)
        }
        let request = WireRecordsModifyRequest(
            operations: wireOperations, zoneID: WireZoneID(zoneID), atomic: atomic,
            clientChangeTokenData: clientChangeTokenData?.base64EncodedString())
        let answer: WireRecordsResponse = try await send("POST", databasePath(scope, "records/modify"), request)
        return answer.records.map { item in
            switch item {
            case .success(let wire): Result { () throws(CloudError) in try RecordOperationResult(wire, zoneID: zone) }
            case .failure(let error): .failure(CloudError(error, zoneID: zone))
            }
        }
    }

    public func lookupRecords(
        in scope: DatabaseScope, zoneID: RecordZoneID, recordNames: [String], desiredKeys: [String]?
    ) async throws -> [Result<Record, CloudError>] {
        let zone = normalized(zoneID, scope)
        let request = WireRecordsLookupRequest(
            records: recordNames.map(WireRecordsLookupRequest.Item.init), zoneID: WireZoneID(zoneID), desiredKeys: desiredKeys)
        let answer: WireRecordsResponse = try await send("POST", databasePath(scope, "records/lookup"), request)
        return answer.records.map { item in
            switch item {
            case .success(let wire): Result { () throws(CloudError) in try Record(wire, zoneID: zone) }
            case .failure(let error): .failure(CloudError(error, zoneID: zone))
            }
        }
    }

    // MARK: Changes

    public func fetchDatabaseChanges(
        in scope: DatabaseScope, since token: ServerChangeToken?, resultsLimit: Int?
    ) async throws -> DatabaseChangesBatch {
        let answer: WireDatabaseChanges = try await send(
            "POST", databasePath(scope, "changes/database"), WireDatabaseChangesRequest(syncToken: token, resultsLimit: resultsLimit))
        return try DatabaseChangesBatch(answer)
    }

    public func fetchRecordZoneChanges(
        in scope: DatabaseScope, _ requests: [ZoneChangesRequest]
    ) async throws -> [Result<ZoneChangesBatch, CloudError>] {
        let request = WireZoneChangesRequest(zones: requests.map {
            WireZoneChangesRequest.Zone(
                zoneID: WireZoneID($0.zoneID), syncToken: $0.previousServerChangeToken, resultsLimit: $0.resultsLimit, desiredKeys: $0.desiredKeys)
        })
        let answer: WireZoneChangesResponse = try await send("POST", databasePath(scope, "changes/zone"), request)
        return answer.results
    }

    // MARK: Sharing and admin

    public func shareZone(_ zoneID: RecordZoneID, with participants: [String]) async throws {
        let _: WireZoneShareResponse = try await send(
            "POST", databasePath(.private, "zones/share"),
            WireZoneShareRequest(zoneID: WireZoneID(zoneID), operationType: "share", participants: participants))
    }

    public func revokeShare(_ zoneID: RecordZoneID, from participants: [String]) async throws {
        let _: WireZoneShareResponse = try await send(
            "POST", databasePath(.private, "zones/share"),
            WireZoneShareRequest(zoneID: WireZoneID(zoneID), operationType: "revoke", participants: participants))
    }

    public func purgeRecordZone(in scope: DatabaseScope, _ zoneID: RecordZoneID) async throws {
        let _: WireEmpty = try await send(
            "POST", adminPath("purgeZone"), WirePurgeZoneRequest(database: scope.rawValue, zoneID: WireZoneID(zoneID)))
    }

    public func encryptedDataReset() async throws {
        let _: WireEmpty = try await send("POST", adminPath("encryptedDataReset"), WireEmpty())
    }

    public func compactHistory(in scope: DatabaseScope?, zoneID: RecordZoneID?, keepLast: Int) async throws {
        let _: WireEmpty = try await send(
            "POST", adminPath("compact"),
            WireCompactRequest(database: scope?.rawValue, zoneID: zoneID.map(WireZoneID.init), keepLast: keepLast))
    }

    /// `admin/export`: the server's whole state as JSON.
    public func exportServerState() async throws -> Data {
        try await sendRaw("POST", adminPath("export"), body: Data("{}".utf8))
    }

    /// `admin/import`: replaces the server's whole state; every token issued before expires.
    public func importServerState(_ state: Data) async throws {
        _ = try await sendRaw("POST", adminPath("import"), body: state)
    }

    /// `admin/reset`: empties the server (users stay); every token issued before expires.
    public func resetServer() async throws {
        _ = try await sendRaw("POST", adminPath("reset"), body: Data("{}".utf8))
    }

    // MARK: Subscriptions and push

    public func modifySubscriptions(
        in scope: DatabaseScope, saving: [Subscription], deleting: [String]
    ) async throws -> [Result<SubscriptionOperationResult, CloudError>] {
        let operations = saving.map { WireSubscriptionsModifyRequest.Operation(operationType: "create", subscription: WireSubscription($0)) }
            + deleting.map { WireSubscriptionsModifyRequest.Operation(operationType: "delete", subscription: WireSubscription(subscriptionID: $0)) }
        let answer: WireSubscriptionsResponse = try await send(
            "POST", databasePath(scope, "subscriptions/modify"), WireSubscriptionsModifyRequest(operations: operations))
        return answer.subscriptions.map { item in
            switch item {
            case .success(let wire) where wire.deleted == true: .success(.deleted(subscriptionID: wire.subscriptionID))
            case .success(let wire): Result { () throws(CloudError) in .saved(try Subscription(wire)) }
            case .failure(let error): .failure(CloudError(error))
            }
        }
    }

    public func fetchSubscriptions(in scope: DatabaseScope, ids: [String]?) async throws -> [Result<Subscription, CloudError>] {
        let answer: WireSubscriptionsResponse
        if let ids {
            answer = try await send(
                "POST", databasePath(scope, "subscriptions/lookup"),
                WireSubscriptionsLookupRequest(subscriptions: ids.map(WireSubscriptionsLookupRequest.Item.init)))
        } else {
            answer = try await send("GET", databasePath(scope, "subscriptions/list"), Optional<WireEmpty>.none)
        }
        return answer.subscriptions.map { item in
            switch item {
            case .success(let wire): Result { () throws(CloudError) in try Subscription(wire) }
            case .failure(let error): .failure(CloudError(error))
            }
        }
    }

    public func registerForPushNotifications() async throws {
        guard let deviceID else {
            throw CloudError(
                .invalidArguments, "This connection has no device ID; make one with withNewDevice() (tokens/create) to receive push notifications.")
        }
        let answer: WireAPNsToken = try await send(
            "POST", devicePath("tokens/register"), WireAPNsToken(apnsEnvironment: environment.rawValue, apnsToken: deviceID))
        registration.set(answer.webcourierURL.flatMap(URL.init(string:)))
    }

    /// Long-polls the webcourier URL for up to ``pushWaitSeconds``, then
    /// takes whatever else is waiting (see ``waitForPushNotifications(timeout:)``).
    public func receivePushNotifications() async throws -> [CloudNotification] {
        try await waitForPushNotifications(timeout: pushWaitSeconds)
    }

    /// The most notifications ``waitForPushNotifications(timeout:)`` takes in one call.
    public static let maxNotificationsPerWait = 64

    /// Waits up to `timeout` seconds for a notification, then takes the
    /// ones already waiting behind it without waiting more (the web courier
    /// answers one notification per poll), up to ``maxNotificationsPerWait``;
    /// oldest first, each once.
    public func waitForPushNotifications(timeout: Double) async throws -> [CloudNotification] {
        guard let first = try await pollWebcourier(timeout: timeout) else { return [] }
        var notifications = [first.notification]
        while notifications.count < Self.maxNotificationsPerWait, let next = try await pollWebcourier(timeout: 0) {
            notifications.append(next.notification)
        }
        return notifications
    }

    /// One long-poll of the webcourier URL: the server answers as soon as a
    /// notification is waiting, with that one notification in Apple's push
    /// form (`WirePushPayload`), or after `timeout` seconds with an empty
    /// body. Returns the notification and when the server queued it; `nil`
    /// when the time was up, or when the answer was one this connection
    /// already had (sent again because its acknowledgement was lost: same `nid`).
    ///
    /// Each poll names the last notification this connection received
    /// (`lastNotificationID`; none yet: an empty name), which tells the
    /// server it may forget it.
    public func pollWebcourier(timeout: Double) async throws -> PolledNotification? {
        guard let deviceID else {
            throw CloudError(.invalidArguments, "This connection has no device ID; it cannot receive push notifications.")
        }
        // The webcourierURL is the credential: only the server's answer has it (tokens/register gives it again).
        if registration.url == nil { try await registerForPushNotifications() }
        guard let url = registration.url, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw CloudError(.invalidArguments, "The webcourier URL for device '\(deviceID)' is not a URL.")
        }
        components.queryItems = [
            URLQueryItem(name: "timeout", value: String(format: "%g", max(0, timeout))),
            URLQueryItem(name: "lastNotificationID", value: registration.lastNotificationID ?? ""),
        ]
        let data = try await sendRaw("GET", "", body: nil, timeout: max(0, timeout) + 30, absolute: components.url)
        guard let polled = try Self.polledNotification(from: data) else { return nil }
        return registration.received(polled)
    }

    /// Reads one webcourier answer: `nil` for an empty body (the poll's time
    /// was up), else one notification in Apple's push form.
    public static func polledNotification(from data: Data) throws(CloudError) -> PolledNotification? {
        if data.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return nil }
        let payload: WirePushPayload
        do {
            payload = try WireJSON.decode(WirePushPayload.self, from: data)
        } catch {
            throw CloudError(
                .internalError,
                "The webcourier answered something that is not one push notification in Apple's form ({\"aps\", \"ck\"}): \(error.reason)")
        }
        return PolledNotification(notification: try CloudNotification(payload), queuedAt: payload.syncscope?.queuedAt)
    }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
