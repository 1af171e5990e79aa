import Foundation
import SyncCore
import SyncWire
import Testing

@Suite struct WirePushPayloadTests {
    let notes = RecordZoneID(zoneName: "Notes", ownerName: "alice")

    @Test func aZoneNotificationHasApplesKeys() throws {
        let notification = CloudNotification.recordZone(RecordZoneNotification(
            notificationID: "N1", subscriptionID: "notes-sub", containerIdentifier: "iCloud.com.example.App", databaseScope: .private,
            recordZoneID: notes, coalescedCount: 3))
        let text = try WireJSON.string(WirePushPayload(notification, ownerRecordName: "alice"))
        #expect(
            text
                == #"{"aps":{"content-available":1},"ck":{"cid":"iCloud.com.example.App","ckuserid":"alice","fet":{"dbs":2,"sid":"notes-sub","zid":"Notes","zoid":"alice"},"nid":"N1"},"syncscope":{"coalescedCount":3,"isPruned":false,"notificationType":"recordZone"}}"#)
        #expect(try CloudNotification(WireJSON.decode(WirePushPayload.self, from: text)) == notification)
    }

    @Test func databaseAndQueryNotificationsRoundTrip() throws {
        let database = CloudNotification.database(DatabaseNotification(
            notificationID: "N2", subscriptionID: "db", containerIdentifier: "c", databaseScope: .shared, alertBody: "Changed", isPruned: true))
        let databaseText = try WireJSON.string(WirePushPayload(database))
        #expect(databaseText.contains(#""met":{"dbs":3,"sid":"db"}"#))
        #expect(databaseText.contains(#""aps":{"alert":"Changed"}"#))
        #expect(databaseText.contains(#""p":true"#))
        #expect(try CloudNotification(WireJSON.decode(WirePushPayload.self, from: databaseText)) == database)

        let query = CloudNotification.query(QueryNotification(
            notificationID: "N3", subscriptionID: "q", containerIdentifier: "c", databaseScope: .public, queryNotificationReason: .recordDeleted,
            recordID: RecordID(recordName: "r1", zoneID: RecordZoneID(zoneName: "_defaultZone", ownerName: "_public")),
            recordFields: ["title": .string("Hi"), "due": .timestamp(1_700_000_000_000)]))
        let queryText = try WireJSON.string(WirePushPayload(query))
        #expect(queryText.contains(#""qry":{"af":{"due":1700000000000,"title":"Hi"},"dbs":1,"fo":3,"rid":"r1","sid":"q","zid":"_defaultZone","zoid":"_public"}"#), "\(queryText)")
        #expect(try CloudNotification(WireJSON.decode(WirePushPayload.self, from: queryText)) == query, "the typed fields come back with their types")
    }

    @Test func whenTheServerQueuedItRidesUnderOurKey() throws {
        let notification = CloudNotification.recordZone(RecordZoneNotification(
            notificationID: "N4", subscriptionID: "s", containerIdentifier: "c", databaseScope: .private, recordZoneID: notes))
        let text = try WireJSON.string(WirePushPayload(notification, ownerRecordName: "alice", queuedAt: 1_767_225_600_123))
        #expect(text.contains(#""syncscope":{"coalescedCount":1,"isPruned":false,"notificationType":"recordZone","queuedAt":1767225600123}"#), "\(text)")
        let decoded = try WireJSON.decode(WirePushPayload.self, from: text)
        #expect(decoded.syncscope?.queuedAt == 1_767_225_600_123)
        #expect(decoded.ck.ckuserid == "alice")
        #expect(try CloudNotification(decoded) == notification)
    }

    @Test func aPayloadFromAnAppleServerWithoutOurExtrasReads() throws {
        let apple = #"{"aps":{"content-available":1},"ck":{"ce":2,"cid":"iCloud.x","fet":{"dbs":2,"sid":"s","zid":"Z","zoid":"_abc"},"nid":"u-1"}}"#
        let notification = try CloudNotification(WireJSON.decode(WirePushPayload.self, from: apple))
        #expect(notification.zoneID == RecordZoneID(zoneName: "Z", ownerName: "_abc"))
        #expect(notification.coalescedCount == 1 && !notification.isPruned)
    }

    @Test func aPayloadOfNoKnownKindOrScopeIsRefusedWithAReason() {
        let none = #"{"aps":{},"ck":{"cid":"c","nid":"n"}}"#
        #expect(throws: CloudError.self) { try CloudNotification(WireJSON.decode(WirePushPayload.self, from: none)) }
        let badScope = #"{"aps":{},"ck":{"cid":"c","nid":"n","met":{"dbs":9,"sid":"s"}}}"#
        do {
            _ = try CloudNotification(WireJSON.decode(WirePushPayload.self, from: badScope))
            Issue.record("accepted dbs 9")
        } catch {
            #expect(error.reason.contains("'dbs' is 9"))
        }
    }
}
