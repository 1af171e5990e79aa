import Foundation
import SyncCore

/// A subscription: the server pushes a notification when what it watches changes, as
/// CloudKit's `CKSubscription`. The twin has database and record-zone subscriptions.
public class CKSubscription: @unchecked Sendable {
    public typealias ID = String

    /// The kinds of subscription, with Apple's raw values.
    public enum SubscriptionType: Int, Sendable, Hashable {
        case query = 1
        case recordZone = 2
        case database = 3
    }

    /// What the subscription's notifications look like.
    public final class NotificationInfo: @unchecked Sendable {
        public var alertBody: String?
        public var shouldSendContentAvailable = false
        public var desiredKeys: [CKRecord.FieldKey]?
        public var collapseIDKey: String?

        public init() {}

        var server: SyncCore.NotificationInfo {
            SyncCore.NotificationInfo(
                alertBody: alertBody, shouldSendContentAvailable: shouldSendContentAvailable, desiredKeys: desiredKeys, collapseIDKey: collapseIDKey)
        }

        convenience init(_ info: SyncCore.NotificationInfo) {
            self.init()
            alertBody = info.alertBody
            shouldSendContentAvailable = info.shouldSendContentAvailable
            desiredKeys = info.desiredKeys
            collapseIDKey = info.collapseIDKey
        }
    }

    public let subscriptionID: CKSubscription.ID
    public let subscriptionType: SubscriptionType
    public var notificationInfo: NotificationInfo?

    init(subscriptionID: CKSubscription.ID, subscriptionType: SubscriptionType) {
        self.subscriptionID = subscriptionID
        self.subscriptionType = subscriptionType
    }

    func server(user: String) -> Subscription? { nil }

    static func from(_ subscription: Subscription, user: String) -> CKSubscription? {
        switch subscription {
        case .database(let s):
            let ck = CKDatabaseSubscription(subscriptionID: s.subscriptionID)
            ck.recordType = s.recordType
            ck.notificationInfo = s.notificationInfo.map(NotificationInfo.init)
            return ck
        case .recordZone(let s):
            let ck = CKRecordZoneSubscription(zoneID: CKRecordZone.ID(s.zoneID, user: user), subscriptionID: s.subscriptionID)
            ck.recordType = s.recordType
            ck.notificationInfo = s.notificationInfo.map(NotificationInfo.init)
            return ck
        case .query: return nil
        }
    }
}

/// Notifies of any change in a database (CloudKit's `CKDatabaseSubscription`).
public final class CKDatabaseSubscription: CKSubscription, @unchecked Sendable {
    public var recordType: CKRecord.RecordType?

    public init(subscriptionID: CKSubscription.ID = UUID().uuidString) {
        super.init(subscriptionID: subscriptionID, subscriptionType: .database)
    }

    override func server(user: String) -> Subscription? {
        .database(DatabaseSubscription(subscriptionID: subscriptionID, recordType: recordType, notificationInfo: notificationInfo?.server))
    }
}

/// Notifies of any change in one zone (CloudKit's `CKRecordZoneSubscription`).
public final class CKRecordZoneSubscription: CKSubscription, @unchecked Sendable {
    public let zoneID: CKRecordZone.ID
    public var recordType: CKRecord.RecordType?

    public init(zoneID: CKRecordZone.ID, subscriptionID: CKSubscription.ID = UUID().uuidString) {
        self.zoneID = zoneID
        super.init(subscriptionID: subscriptionID, subscriptionType: .recordZone)
    }

    override func server(user: String) -> Subscription? {
        .recordZone(
            RecordZoneSubscription(
                subscriptionID: subscriptionID, zoneID: zoneID.serverZoneID(user: user), recordType: recordType,
                notificationInfo: notificationInfo?.server))
    }
}

extension CKDatabase {
    public func subscription(for id: CKSubscription.ID) async throws -> CKSubscription {
        let link = try link()
        let answers = try await run(link) { try await link.service.fetchSubscriptions(in: scope, ids: [id]) }
        guard let answer = answers.first else { throw CKError(.unknownItem) }
        switch answer {
        case .success(let s):
            guard let ck = CKSubscription.from(s, user: link.user) else { throw CKError(.invalidArguments) }
            return ck
        case .failure(let error): throw CKError(error, user: link.user)
        }
    }

    public func allSubscriptions() async throws -> [CKSubscription] {
        let link = try link()
        let answers = try await run(link) { try await link.service.fetchSubscriptions(in: scope, ids: nil) }
        return answers.compactMap { try? $0.get() }.compactMap { CKSubscription.from($0, user: link.user) }
    }

    public func save(_ subscription: CKSubscription) async throws -> CKSubscription {
        let (saved, _) = try await modifySubscriptions(saving: [subscription], deleting: [])
        guard let result = saved[subscription.subscriptionID] else { throw CKError(.internalError) }
        return try result.get()
    }

    public func deleteSubscription(withID id: CKSubscription.ID) async throws -> CKSubscription.ID {
        let (_, deleted) = try await modifySubscriptions(saving: [], deleting: [id])
        guard let result = deleted[id] else { throw CKError(.internalError) }
        try result.get()
        return id
    }

    public func modifySubscriptions(
        saving subscriptionsToSave: [CKSubscription], deleting subscriptionIDsToDelete: [CKSubscription.ID]
    ) async throws -> (saveResults: [CKSubscription.ID: Result<CKSubscription, any Error>], deleteResults: [CKSubscription.ID: Result<Void, any Error>]) {
        try await modifySubscriptions(saving: subscriptionsToSave, deleting: subscriptionIDsToDelete, via: try link())
    }

    func modifySubscriptions(
        saving subscriptionsToSave: [CKSubscription], deleting subscriptionIDsToDelete: [CKSubscription.ID], via link: DeviceLink
    ) async throws(CKError) -> (saveResults: [CKSubscription.ID: Result<CKSubscription, any Error>], deleteResults: [CKSubscription.ID: Result<Void, any Error>]) {
        let server = subscriptionsToSave.compactMap { $0.server(user: link.user) }
        let answers = try await run(link) { try await link.service.modifySubscriptions(in: scope, saving: server, deleting: subscriptionIDsToDelete) }
        var saves: [CKSubscription.ID: Result<CKSubscription, any Error>] = [:]
        var deletes: [CKSubscription.ID: Result<Void, any Error>] = [:]
        for (index, answer) in answers.enumerated() {
            if index < server.count {
                let subscription = subscriptionsToSave[index]
                saves[subscription.subscriptionID] = answer.map { _ in subscription }.mapError { CKError($0, user: link.user) }
            } else {
                deletes[subscriptionIDsToDelete[index - server.count]] = answer.map { _ in () }.mapError { CKError($0, user: link.user) }
            }
        }
        return (saves, deletes)
    }
}
