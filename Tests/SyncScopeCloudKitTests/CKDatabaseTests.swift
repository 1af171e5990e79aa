import Foundation
import SyncCore
import Testing

@testable import SyncScopeCloudKit

/// CKDatabase's async API over the in-process server, as CloudKit answers it.
@Suite struct CKDatabaseTests {
    /// A container on its own, fresh server (tests run in one process).
    static func freshContainer(_ name: String = #function, seed: UInt64 = 1) -> CKContainer {
        let identifier = "iCloud.test.database.\(name).\(UUID().uuidString)"
        SyncScopeBackEnd.install(.inProcess(seed: seed), forContainer: identifier)
        return CKContainer(identifier: identifier)
    }

    let zone = CKRecordZone(zoneName: "Contacts")

    /// New records named prefix0, prefix1, … in the zone, each with a number.
    func contacts(_ prefix: String, count: Int) -> [CKRecord] {
        (0..<count).map { i in
            let record = CKRecord(recordType: "Contact", recordID: CKRecord.ID(recordName: "\(prefix)\(i)", zoneID: zone.zoneID))
            record["n"] = i
            return record
        }
    }

    @Test func containersWithOneIdentifierShareTheirServer() async throws {
        let phone = Self.freshContainer()
        let laptop = CKContainer(identifier: try #require(phone.containerIdentifier))
        #expect(try await phone.accountStatus() == .available)
        #expect(try await phone.userRecordID() == laptop.userRecordID())

        _ = try await phone.privateCloudDatabase.save(zone)
        let record = CKRecord(recordType: "Contact", recordID: CKRecord.ID(recordName: "ada", zoneID: zone.zoneID))
        record["name"] = "Ada"
        let saved = try await phone.privateCloudDatabase.save(record)
        #expect(saved.recordChangeTag != nil)
        #expect(saved.changedKeys().isEmpty)
        #expect(saved.creationDate != nil)

        let fetched = try await laptop.privateCloudDatabase.record(for: record.recordID)
        #expect(fetched["name"] as? String == "Ada")
        #expect(fetched.recordChangeTag == saved.recordChangeTag)
        #expect(fetched.recordID.zoneID.ownerName == CKCurrentUserDefaultName)

        let zones = try await laptop.privateCloudDatabase.allRecordZones().map(\.zoneID)
        #expect(zones.contains(zone.zoneID))
        #expect(zones.contains(.default))
        #expect(try await laptop.privateCloudDatabase.recordZone(for: zone.zoneID).zoneID == zone.zoneID)
    }

    @Test func staleSavesConflictWithTheServerRecord() async throws {
        let database = Self.freshContainer().privateCloudDatabase
        _ = try await database.save(zone)
        let id = CKRecord.ID(recordName: "ada", zoneID: zone.zoneID)
        let first = CKRecord(recordType: "Contact", recordID: id)
        first["name"] = "Ada"
        let saved = try await database.save(first)

        let edit = saved.copy() as! CKRecord
        edit["name"] = "Ada L."
        _ = try await database.save(edit)

        saved["name"] = "Countess"
        do {
            _ = try await database.save(saved)
            Issue.record("a save with a stale change tag succeeded")
        } catch let error as CKError {
            #expect(error.code == .serverRecordChanged)
            #expect(error.serverRecord?["name"] as? String == "Ada L.")
            #expect(error.clientRecord?["name"] as? String == "Countess")
        }

        // A new record over an existing one conflicts too; changedKeys writes over it.
        let blind = CKRecord(recordType: "Contact", recordID: id)
        blind["nickname"] = "A"
        let (results, _) = try await database.modifyRecords(saving: [blind], deleting: [], savePolicy: .changedKeys)
        let merged = try #require(try results[id]?.get())
        #expect(merged["name"] as? String == "Ada L.")
        #expect(merged["nickname"] as? String == "A")

        // allKeys replaces every field.
        let replacement = CKRecord(recordType: "Contact", recordID: id)
        replacement["name"] = "Only"
        let (replaced, _) = try await database.modifyRecords(saving: [replacement], deleting: [], savePolicy: .allKeys)
        #expect(try replaced[id]?.get().allKeys() == ["name"])
    }

    @Test func perItemFailuresComeBackInTheResults() async throws {
        let database = Self.freshContainer().privateCloudDatabase
        let missingZone = CKRecordZone.ID(zoneName: "Nowhere")
        let orphan = CKRecord(recordType: "Contact", recordID: CKRecord.ID(recordName: "o", zoneID: missingZone))
        orphan["name"] = "x"
        let (saves, _) = try await database.modifyRecords(saving: [orphan], deleting: [])
        do {
            _ = try saves[orphan.recordID]?.get()
            Issue.record("a record saved into a zone that does not exist")
        } catch CKError.zoneNotFound {}
        do {
            _ = try await database.save(orphan)
            Issue.record("a record saved into a zone that does not exist")
        } catch CKError.zoneNotFound {}
        do {
            _ = try await database.record(for: CKRecord.ID(recordName: "nobody"))
            Issue.record("found a record that was never saved")
        } catch CKError.unknownItem {}
        do {
            _ = try await database.recordZone(for: missingZone)
            Issue.record("found a zone that was never saved")
        } catch CKError.zoneNotFound {}
    }

    @Test func changesSinceATokenInPages() async throws {
        let container = Self.freshContainer()
        let database = container.privateCloudDatabase
        let start = try await database.databaseChanges(since: nil)
        _ = try await database.save(zone)
        let records = contacts("c", count: 5)
        _ = try await database.modifyRecords(saving: records, deleting: [])

        let dbChanges = try await database.databaseChanges(since: start.changeToken)
        #expect(dbChanges.modifications.map(\.zoneID) == [zone.zoneID])
        #expect(!dbChanges.moreComing)

        var token: CKServerChangeToken?
        var seen: [String] = []
        var deleted: [String] = []
        var pages = 0
        repeat {
            let page = try await database.recordZoneChanges(inZoneWith: zone.zoneID, since: token, resultsLimit: 2)
            seen += page.modificationResultsByID.keys.map(\.recordName)
            deleted += page.deletions.map(\.recordID.recordName)
            token = page.changeToken
            pages += 1
            if !page.moreComing { break }
        } while pages < 10
        #expect(pages == 3)
        #expect(Set(seen) == ["c0", "c1", "c2", "c3", "c4"])
        #expect(deleted.isEmpty)

        let none = try await database.recordZoneChanges(inZoneWith: zone.zoneID, since: token)
        #expect(none.modificationResultsByID.isEmpty && none.deletions.isEmpty)

        _ = try await database.deleteRecord(withID: records[0].recordID)
        let afterDelete = try await database.recordZoneChanges(inZoneWith: zone.zoneID, since: none.changeToken)
        #expect(afterDelete.deletions.map(\.recordID) == [records[0].recordID])
        #expect(afterDelete.deletions.first?.recordType == "Contact")

        _ = try await database.deleteRecordZone(withID: zone.zoneID)
        let gone = try await database.databaseChanges(since: dbChanges.changeToken)
        #expect(gone.deletions.map(\.zoneID) == [zone.zoneID])
        #expect(gone.deletions.first?.reason == .deleted)
    }

    @Test func queriesPageWithACursor() async throws {
        let database = Self.freshContainer().privateCloudDatabase
        _ = try await database.save(zone)
        let records = contacts("q", count: 5)
        _ = try await database.modifyRecords(saving: records, deleting: [])
        let query = CKQuery(recordType: "Contact", predicate: NSPredicate(value: true))
        let first = try await database.records(matching: query, inZoneWith: zone.zoneID, resultsLimit: 3)
        #expect(first.matchResults.count == 3)
        let cursor = try #require(first.queryCursor)
        let rest = try await database.records(continuingMatchFrom: cursor)
        #expect(rest.queryCursor == nil)
        let names = Set((first.matchResults + rest.matchResults).map(\.0.recordName))
        #expect(names == Set(records.map(\.recordID.recordName)))
        let nothing = try await database.records(matching: CKQuery(recordType: "Contact", predicate: NSPredicate(value: false)))
        #expect(nothing.matchResults.isEmpty)
    }

    @Test func subscriptionsSaveListAndDelete() async throws {
        let database = Self.freshContainer().privateCloudDatabase
        _ = try await database.save(zone)
        let db = CKDatabaseSubscription(subscriptionID: "all")
        db.notificationInfo = CKSubscription.NotificationInfo()
        db.notificationInfo?.shouldSendContentAvailable = true
        _ = try await database.save(db)
        _ = try await database.save(CKRecordZoneSubscription(zoneID: zone.zoneID, subscriptionID: "contacts"))
        let all = try await database.allSubscriptions()
        #expect(Set(all.map(\.subscriptionID)) == ["all", "contacts"])
        let zoneSubscription = try #require(try await database.subscription(for: "contacts") as? CKRecordZoneSubscription)
        #expect(zoneSubscription.zoneID == zone.zoneID)
        #expect(try await database.deleteSubscription(withID: "all") == "all")
        #expect(try await database.allSubscriptions().map(\.subscriptionID) == ["contacts"])
    }

    @Test func aSignedOutDeviceIsNotAuthenticated() async throws {
        let container = Self.freshContainer()
        container.signIn(nil)
        #expect(try await container.accountStatus() == .noAccount)
        do {
            _ = try await container.privateCloudDatabase.allRecordZones()
            Issue.record("a signed-out device listed zones")
        } catch CKError.notAuthenticated {}
        container.signIn("_other")
        #expect(try await container.userRecordID().recordName == "_other")
    }
}
