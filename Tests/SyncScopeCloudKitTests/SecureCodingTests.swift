import Foundation
import SyncCore
import Testing

@testable import SyncScopeCloudKit

/// The data types keep what CloudKit's keep through `NSKeyedArchiver` with secure coding.
@Suite struct SecureCodingTests {
    private func archived(_ body: (NSKeyedArchiver) -> Void) -> Data {
        let archiver = NSKeyedArchiver(requiringSecureCoding: true)
        body(archiver)
        archiver.finishEncoding()
        return archiver.encodedData
    }

    private func serverRecord() -> CKRecord {
        var fields = RecordFields()
        fields["name"] = .string("Ada")
        fields["age"] = .int64(36)
        fields["friend"] = .reference(RecordReference(recordName: "bob"))
        let zone = RecordZoneID(zoneName: "Contacts", ownerName: "alice")
        return CKRecord(
            Record(
                recordID: RecordID(recordName: "ada", zoneID: zone), recordType: "Contact", fields: fields, recordChangeTag: "tag-7",
                created: RecordStamp(timestamp: 1_700_000_000_123, userRecordName: "alice"),
                modified: RecordStamp(timestamp: 1_700_000_100_456, userRecordName: "bob")),
            user: "alice")
    }

    @Test func systemFieldsRoundTripWithoutTheFields() throws {
        let record = serverRecord()
        let data = archived { record.encodeSystemFields(with: $0) }
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        unarchiver.requiresSecureCoding = true
        let decoded = try #require(CKRecord(coder: unarchiver))
        unarchiver.finishDecoding()
        #expect(decoded.recordID == record.recordID)
        #expect(decoded.recordID.zoneID.ownerName == CKCurrentUserDefaultName)
        #expect(decoded.recordType == "Contact")
        #expect(decoded.recordChangeTag == "tag-7")
        #expect(decoded.creationDate == record.creationDate)
        #expect(decoded.modificationDate == Date(timeIntervalSince1970: 1_700_000_100.456))
        #expect(decoded.creatorUserRecordID?.recordName == CKCurrentUserDefaultName)
        #expect(decoded.lastModifiedUserRecordID?.recordName == "bob")
        #expect(decoded.allKeys().isEmpty)
        #expect(decoded.changedKeys().isEmpty)
    }

    @Test func wholeRecordRoundTripsThroughArchivedData() throws {
        let record = serverRecord()
        record["tags"] = ["a", "b"]
        record.encryptedValues["secret"] = "hush"
        let data = try NSKeyedArchiver.archivedData(withRootObject: record, requiringSecureCoding: true)
        let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: CKRecord.self, from: data))
        #expect(decoded.recordID == record.recordID)
        #expect(decoded["name"] as? String == "Ada")
        #expect(decoded["age"] as? Int == 36)
        #expect(decoded["tags"] as? [String] == ["a", "b"])
        #expect(decoded.encryptedValues["secret"] as? String == "hush")
        #expect(decoded["secret"] == nil)
        let friend = try #require(decoded["friend"] as? CKRecord.Reference)
        #expect(friend.recordID == CKRecord.ID(recordName: "bob", zoneID: CKRecordZone.ID(zoneName: "Contacts")))
        #expect(decoded.recordChangeTag == "tag-7")
    }

    @Test func identifiersZonesAndTokensRoundTrip() throws {
        let id = CKRecord.ID(recordName: "r1", zoneID: CKRecordZone.ID(zoneName: "Z", ownerName: "_abc"))
        let idData = try NSKeyedArchiver.archivedData(withRootObject: id, requiringSecureCoding: true)
        #expect(try NSKeyedUnarchiver.unarchivedObject(ofClass: CKRecord.ID.self, from: idData) == id)

        let zone = CKRecordZone(zoneName: "Contacts")
        let zoneData = try NSKeyedArchiver.archivedData(withRootObject: zone, requiringSecureCoding: true)
        let decodedZone = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: CKRecordZone.self, from: zoneData))
        #expect(decodedZone.zoneID == zone.zoneID)
        #expect(decodedZone.capabilities.contains(.fetchChanges))
        #expect(CKRecordZone.default().capabilities.isEmpty)

        let token = CKServerChangeToken(ServerChangeToken(rawValue: "abc.def-123"))
        let tokenData = try NSKeyedArchiver.archivedData(withRootObject: token, requiringSecureCoding: true)
        #expect(try NSKeyedUnarchiver.unarchivedObject(ofClass: CKServerChangeToken.self, from: tokenData) == token)
        #expect(token != CKServerChangeToken(ServerChangeToken(rawValue: "other")))
    }

    @Test func changedKeysTrackLocalEditsOnly() {
        let record = serverRecord()
        #expect(record.changedKeys().isEmpty)
        record["name"] = "Ada Lovelace"
        record["age"] = nil
        #expect(record.changedKeys() == ["name", "age"])
        #expect(record.allKeys() == ["friend", "name"])
        let copy = record.copy() as! CKRecord
        copy["name"] = "Other"
        #expect(record["name"] as? String == "Ada Lovelace")
    }

    @Test func fieldValuesReadBackAsCloudKitHandsThemOut() {
        let record = CKRecord(recordType: "T", recordID: CKRecord.ID(recordName: "x"))
        let date = Date(timeIntervalSince1970: 1_234_567.891)
        record["when"] = date
        record["ratio"] = 0.25
        record["flag"] = true
        record["blob"] = Data([1, 2, 3])
        #expect(record["when"] as? Date == date)
        #expect(record["ratio"] as? Double == 0.25)
        #expect(record["flag"] as? Int == 1)
        #expect(record["blob"] as? Data == Data([1, 2, 3]))
        #expect(record.fieldValue(forKey: "when") == .timestamp(1_234_567_891))
    }

    @Test func errorsCarryCloudKitsCodesAndUserInfo() throws {
        let server = Record(recordID: RecordID(recordName: "a", zoneID: RecordZoneID(zoneName: "Z", ownerName: "u")), recordType: "T", recordChangeTag: "9")
        let conflict = CKError(CloudError(.serverRecordChanged, "changed", serverRecord: server), user: "u")
        #expect(conflict.code == .serverRecordChanged)
        #expect(conflict.errorCode == 14)
        #expect(CKError.errorDomain == "CKErrorDomain")
        #expect(conflict.serverRecord?.recordChangeTag == "9")
        #expect(conflict.serverRecord?.recordID.zoneID.ownerName == CKCurrentUserDefaultName)

        let throttled = CKError(CloudError(.requestRateLimited, "slow down", retryAfter: 3), user: "u")
        #expect(throttled.retryAfterSeconds == 3)
        #expect(throttled.code.isRetryable)

        let id = CKRecord.ID(recordName: "a")
        let partial = CKError.partial([id: CKError(.unknownItem)], "save records")
        #expect(partial.code == .partialFailure)
        #expect((partial.partialErrorsByItemID?[id] as? CKError)?.code == .unknownItem)
        let nsError = partial as NSError
        #expect(nsError.domain == CKErrorDomain)
        #expect(nsError.code == CKError.Code.partialFailure.rawValue)

        do {
            throw CKError(.zoneNotFound)
        } catch CKError.zoneNotFound {
        } catch {
            Issue.record("expected zoneNotFound, got \(error)")
        }
    }
}
