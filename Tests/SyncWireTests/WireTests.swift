import Foundation
import SyncCore
import SyncWire
import Testing

private let notes = RecordZoneID(zoneName: "Notes", ownerName: "alice")

/// Encodes with the project's JSON helper and decodes back.
private func viaJSON<T: Codable>(_ value: T) throws -> T {
    try WireJSON.decode(T.self, from: WireJSON.encode(value))
}

/// Decodes a record from JSON text and converts it to the domain.
private func record(_ json: String, zoneID: RecordZoneID = notes) throws -> Record {
    try Record(WireJSON.decode(WireRecord.self, from: json), zoneID: zoneID)
}

/// The reason of the `CloudError` `body` throws, or `nil` when it throws none.
private func failure(_ body: () throws -> Void) -> CloudError? {
    do {
        try body()
        return nil
    } catch let error as CloudError {
        return error
    } catch {
        Issue.record("expected a CloudError, got \(error)")
        return nil
    }
}

private func fieldValue(_ json: String) throws -> FieldValue? {
    let r = try record(#"{"recordName": "r1", "recordType": "T", "fields": {"f": \#(json)}}"#)
    return r["f"]
}

@Suite struct WireFieldTests {
    static let everyType: [String: FieldValue] = [
        "string": .string("héllo \"world\" / ✓"),
        "emptyString": .string(""),
        "int": .int64(42),
        "intMax": .int64(.max),
        "intMin": .int64(.min),
        "double": .double(0.1),
        "doubleWhole": .double(3.0),
        "doubleNegative": .double(-1.5e-300),
        "bytes": .bytes(Data([0, 1, 2, 250, 255])),
        "encrypted": .encryptedBytes(Data([7, 0, 7])),
        "encryptedList": .list(.encryptedBytes, [.encryptedBytes(Data([1, 2]))]),
        "validatedReference": .reference(RecordReference(recordName: "v", action: .validate)),
        "emptyBytes": .bytes(Data()),
        "timestamp": .timestamp(1_767_225_600_123),
        "reference": .reference(RecordReference(recordName: "parent")),
        "referenceElsewhere": .reference(RecordReference(
            recordName: "p2", zoneID: RecordZoneID(zoneName: "Other", ownerName: "bob"), action: .deleteSelf)),
        "location": .location(Location(latitude: 52.52, longitude: -13.405)),
        "asset": .asset(AssetDescriptor(fileChecksum: "abc123", size: 2048)),
        "assetWithURL": .asset(AssetDescriptor(fileChecksum: "def", size: 0, downloadURL: "https://example.com/a?x=1")),
        "stringList": .list(.string, ["a", "b", ""]),
        "int64List": .list(.int64, [1, -2, .int64(.max)]),
        "doubleList": .list(.double, [.double(1.0), .double(2.5)]),
        "bytesList": .list(.bytes, [.bytes(Data([1])), .bytes(Data([2, 3]))]),
        "timestampList": .list(.timestamp, [.timestamp(0), .timestamp(5)]),
        "referenceList": .list(.reference, [.reference(RecordReference(recordName: "x", action: .deleteSelf))]),
        "locationList": .list(.location, [.location(Location(latitude: 0, longitude: 0))]),
        "assetList": .list(.asset, [.asset(AssetDescriptor(fileChecksum: "c", size: 1))]),
        "emptyStringList": .list(.string, []),
        "emptyInt64List": .list(.int64, []),
    ]

    @Test func everyFieldTypeRoundTripsThroughJSON() throws {
        let original = Record(
            recordID: RecordID(recordName: "r1", zoneID: notes), recordType: "Everything",
            fields: RecordFields(Self.everyType), recordChangeTag: "7",
            created: RecordStamp(timestamp: 1, userRecordName: "alice", deviceID: "phone"),
            modified: RecordStamp(timestamp: 2, userRecordName: "bob"))
        let decoded = try Record(viaJSON(WireRecord(original)), zoneID: notes)
        #expect(decoded == original)
        for type in FieldType.allCases {
            #expect(Self.everyType.values.contains { $0.typeName == type.rawValue }, "no \(type.rawValue) in the round trip")
            #expect(Self.everyType.values.contains { $0.typeName == type.listName }, "no \(type.listName) in the round trip")
        }
    }

    @Test func eachFieldIsWrittenWithItsTypeInCloudKitShape() throws {
        func json(_ value: FieldValue) throws -> String { try WireJSON.string(WireField(value)) }
        #expect(try json("hi") == #"{"type":"STRING","value":"hi"}"#)
        #expect(try json(.int64(-7)) == #"{"type":"INT64","value":-7}"#)
        #expect(try json(.double(2.5)) == #"{"type":"DOUBLE","value":2.5}"#)
        #expect(try json(.bytes(Data("hello".utf8))) == #"{"type":"BYTES","value":"aGVsbG8="}"#)
        #expect(try json(.timestamp(1_767_225_600_000)) == #"{"type":"TIMESTAMP","value":1767225600000}"#)
        #expect(try json(.reference(RecordReference(recordName: "p"))) == #"{"type":"REFERENCE","value":{"action":"NONE","recordName":"p"}}"#)
        #expect(
            try json(.reference(RecordReference(recordName: "p", zoneID: notes, action: .deleteSelf)))
                == #"{"type":"REFERENCE","value":{"action":"DELETE_SELF","recordName":"p","zoneID":{"ownerRecordName":"alice","zoneName":"Notes"}}}"#)
        #expect(try json(.location(Location(latitude: 1.5, longitude: -2.5))) == #"{"type":"LOCATION","value":{"latitude":1.5,"longitude":-2.5}}"#)
        #expect(
            try json(.asset(AssetDescriptor(fileChecksum: "ck", size: 9, downloadURL: "https://x/y")))
                == #"{"type":"ASSET","value":{"downloadURL":"https://x/y","fileChecksum":"ck","size":9}}"#)
        #expect(try json(.list(.string, ["a", "b"])) == #"{"type":"STRING_LIST","value":["a","b"]}"#)
        #expect(try json(.list(.timestamp, [])) == #"{"type":"TIMESTAMP_LIST","value":[]}"#)
    }

    @Test func typeIsInferredWhenTheJSONValueMakesItClear() throws {
        #expect(try fieldValue(#"{"value": "text"}"#) == .string("text"))
        #expect(try fieldValue(#"{"value": 12}"#) == .int64(12))
        #expect(try fieldValue(#"{"value": 1.25}"#) == .double(1.25))
        #expect(try fieldValue(#"{"value": ["a", "b"]}"#) == .list(.string, ["a", "b"]))
        #expect(try fieldValue(#"{"value": [1, 2]}"#) == .list(.int64, [1, 2]))
        #expect(try fieldValue(#"{"value": [0.5, 1.5]}"#) == .list(.double, [.double(0.5), .double(1.5)]))
        #expect(try fieldValue(#"{"value": [1, 2.5]}"#) == .list(.double, [.double(1), .double(2.5)]))
        #expect(try fieldValue(#"{"value": {"recordName": "p"}}"#) == .reference(RecordReference(recordName: "p")))
        #expect(try fieldValue(#"{"value": {"latitude": 1, "longitude": 2.5}}"#) == .location(Location(latitude: 1, longitude: 2.5)))
        #expect(try fieldValue(#"{"value": {"fileChecksum": "c", "size": 3}}"#) == .asset(AssetDescriptor(fileChecksum: "c", size: 3)))
    }

    @Test func declaredTypeDecidesOverWhatTheValueLooksLike() throws {
        #expect(try fieldValue(#"{"value": 3, "type": "DOUBLE"}"#) == .double(3))
        #expect(try fieldValue(#"{"value": 1767225600000, "type": "TIMESTAMP"}"#) == .timestamp(1_767_225_600_000))
        #expect(try fieldValue(#"{"value": "AAEC", "type": "BYTES"}"#) == .bytes(Data([0, 1, 2])))
        #expect(try fieldValue(#"{"value": [1, 2], "type": "DOUBLE_LIST"}"#) == .list(.double, [.double(1), .double(2)]))
        #expect(try fieldValue(#"{"value": [], "type": "STRING_LIST"}"#) == .list(.string, []))
        #expect(try fieldValue(#"{"value": 4.0, "type": "INT64"}"#) == .int64(4))
    }

    @Test func unclearValueWithoutTypeIsRejectedNamingTheField() {
        for json in [#"{"value": true}"#, #"{"value": []}"#, #"{"value": ["a", 1]}"#, #"{"value": {"x": 1}}"#, #"{"value": [[1]]}"#] {
            let error = failure { _ = try fieldValue(json) }
            #expect(error?.code == .invalidArguments, "\(json)")
            #expect(error?.reason.contains("Field 'f' of record 'r1'") == true, "\(json): \(error?.reason ?? "")")
            #expect(error?.reason.contains("type") == true, "\(json)")
            #expect(error?.recordName == "r1")
        }
        #expect(failure { _ = try fieldValue(#"{"value": ["a", 1]}"#) }?.reason.contains("mixes STRING and INT64") == true)
        #expect(failure { _ = try fieldValue(#"{"value": true}"#) }?.reason.contains("no boolean type") == true)
    }

    @Test func unknownTypeNameIsRejectedNamingTheFieldAndType() {
        let error = failure { _ = try fieldValue(#"{"value": "x", "type": "STRNG"}"#) }
        #expect(error?.code == .invalidArguments)
        #expect(error?.reason.contains("Field 'f'") == true)
        #expect(error?.reason.contains("'STRNG' is not a field type") == true)
        #expect(failure { _ = try fieldValue(#"{"value": ["x"], "type": "LIST"}"#) }?.reason.contains("'LIST' is not a field type") == true)
    }

    @Test func valueThatDoesNotMatchItsTypeIsRejectedNamingTheField() {
        let cases: [(json: String, words: String)] = [
            (#"{"value": "ten", "type": "INT64"}"#, "not a valid INT64"),
            (#"{"value": 3.5, "type": "INT64"}"#, "not a valid INT64"),
            (#"{"value": 12345678901234567890, "type": "INT64"}"#, "not a valid INT64"),
            (#"{"value": 5, "type": "STRING"}"#, "not a valid STRING"),
            (#"{"value": "1.5", "type": "DOUBLE"}"#, "not a valid DOUBLE"),
            (#"{"value": "not base64!", "type": "BYTES"}"#, "not valid base64"),
            (#"{"value": 1.5, "type": "TIMESTAMP"}"#, "not a valid TIMESTAMP"),
            (#"{"value": "p", "type": "REFERENCE"}"#, "not a valid REFERENCE"),
            (#"{"value": {"recordName": "p", "action": "EXPLODE"}, "type": "REFERENCE"}"#, "action 'EXPLODE'"),
            (#"{"value": {"recordName": 5}, "type": "REFERENCE"}"#, "\"recordName\" must be a string"),
            (#"{"value": {"latitude": 1}, "type": "LOCATION"}"#, "\"longitude\" must both be numbers"),
            (#"{"value": {"fileChecksum": "c", "size": "big"}, "type": "ASSET"}"#, "\"size\" must be an integer"),
            (#"{"value": "a", "type": "STRING_LIST"}"#, "needs a list"),
            (#"{"value": ["a", 2], "type": "STRING_LIST"}"#, "item 1 (2) is not a valid STRING"),
        ]
        for (json, words) in cases {
            let error = failure { _ = try fieldValue(json) }
            #expect(error?.code == .invalidArguments, "\(json)")
            #expect(error?.reason.contains("Field 'f' of record 'r1'") == true, "\(json): \(error?.reason ?? "none")")
            #expect(error?.reason.contains(words) == true, "\(json): \(error?.reason ?? "none")")
        }
    }

    /// CloudKit Web Services: a field whose value is `null` is a field
    /// without a value (a save removes it), not an error.
    @Test func missingOrNullValueMeansNoValue() throws {
        for json in [#"{"type": "STRING"}"#, #"{"value": null, "type": "STRING"}"#, #"{}"#, "null"] {
            #expect(try fieldValue(json) == nil, "\(json)")
            let wire = try WireJSON.decode(WireRecord.self, from: #"{"recordName": "r1", "recordType": "T", "fields": {"f": \#(json), "g": {"value": 1}}}"#)
            #expect(wire.fieldNamesWithoutValue == ["f"], "\(json)")
        }
        // Asked for directly, a value-less field still explains itself.
        let error = failure { _ = try WireField(value: nil).fieldValue(name: "f", recordName: "r1") }
        #expect(error?.reason.contains("Field 'f' of record 'r1': it has no value") == true)
    }

    @Test func withSeveralBadFieldsTheErrorIsAlwaysAboutTheFirstByName() {
        let json = #"{"recordName": "r", "recordType": "T", "fields": {"zeta": {"value": true}, "alpha": {"type": "X", "value": 1}, "mid": {}}}"#
        for _ in 0..<5 {
            #expect(failure { _ = try record(json) }?.reason.hasPrefix("Field 'alpha'") == true)
        }
    }
}

@Suite struct WireDictionaryTests {
    @Test func zoneIDDecodesFromSpecExampleAndOwnerDefaultsToCaller() throws {
        let full = try WireJSON.decode(WireZoneID.self, from: #"{"zoneName": "Notes", "ownerRecordName": "alice"}"#)
        #expect(RecordZoneID(full) == notes)
        let bare = try WireJSON.decode(WireZoneID.self, from: #"{"zoneName": "_defaultZone"}"#)
        #expect(RecordZoneID(bare) == RecordZoneID(zoneName: "_defaultZone", ownerName: ""))
        #expect(try WireJSON.string(WireZoneID(notes)) == #"{"ownerRecordName":"alice","zoneName":"Notes"}"#)
    }

    @Test func recordDecodesFromSpecShapedDictionary() throws {
        let json = #"""
        {"recordName": "n1", "recordType": "Note", "recordChangeTag": "3k",
         "fields": {"title": {"value": "Hello", "type": "STRING"}, "count": {"value": 2}},
         "created": {"timestamp": 1767225600000, "userRecordName": "alice", "deviceID": "phone"},
         "modified": {"timestamp": 1767225601000, "userRecordName": "bob"},
         "deleted": false}
        """#
        let r = try record(json)
        #expect(r.recordID == RecordID(recordName: "n1", zoneID: notes))
        #expect(r.recordType == "Note")
        #expect(r.recordChangeTag == "3k")
        #expect(r.fields == ["count": 2, "title": "Hello"])
        #expect(r.created == RecordStamp(timestamp: 1_767_225_600_000, userRecordName: "alice", deviceID: "phone"))
        #expect(r.modified == RecordStamp(timestamp: 1_767_225_601_000, userRecordName: "bob"))
    }

    @Test func recordIsWrittenWithExactlyTheSpecKeys() throws {
        let r = Record(
            recordID: RecordID(recordName: "n1", zoneID: notes), recordType: "Note", fields: ["title": "Hi"],
            recordChangeTag: "a", created: RecordStamp(timestamp: 1, userRecordName: "alice"),
            modified: RecordStamp(timestamp: 2, userRecordName: "alice", deviceID: "mac"))
        #expect(
            try WireJSON.string(WireRecord(r))
                == #"{"created":{"timestamp":1,"userRecordName":"alice"},"deleted":false,"fields":{"title":{"type":"STRING","value":"Hi"}},"modified":{"deviceID":"mac","timestamp":2,"userRecordName":"alice"},"recordChangeTag":"a","recordName":"n1","recordType":"Note"}"#)
        let gone = WireRecord(deleted: r.recordID, recordType: "Note")
        #expect(try WireJSON.string(gone) == #"{"deleted":true,"recordName":"n1"}"#, "Apple's shape: no recordType, no fields")
    }

    @Test func missingRecordNameNamesTheKey() {
        let error = failure { _ = try WireJSON.decode(WireRecord.self, from: #"{"recordType": "Note"}"#) }
        #expect(error?.code == .invalidArguments)
        #expect(error?.reason.contains("'recordName' is missing") == true, "\(error?.reason ?? "")")
        // A record to save may leave it out (the server names it); the operation must still hold a record.
        let save = try? WireJSON.decode(WireRecordsModifyRequest.self, from: #"{"operations":[{"operationType":"create","record":{"recordType":"Note"}}]}"#)
        #expect(save?.operations.first?.record.recordName == "" && save?.operations.first?.record.recordType == "Note")
        let noRecord = failure { _ = try WireJSON.decode(WireRecordsModifyRequest.self, from: #"{"operations":[{"operationType":"create"}]}"#) }
        #expect(noRecord?.reason.contains("'record' is missing") == true, "\(noRecord?.reason ?? "")")
        let notJSON = failure { _ = try WireJSON.decode(WireRecord.self, from: "{nope") }
        #expect(notJSON?.code == .invalidArguments)
        #expect(notJSON?.reason.contains("not JSON") == true, "\(notJSON?.reason ?? "")")
    }

    @Test func errorDictionaryCarriesCodesAndServerRecordAndRoundTrips() throws {
        let server = Record(
            recordID: RecordID(recordName: "n1", zoneID: notes), recordType: "Note", fields: ["title": "server"],
            recordChangeTag: "9")
        let error = CloudError(.serverRecordChanged, "Changed on the server.", recordName: "n1", zoneID: notes, serverRecord: server)
        let wire = WireError(error, retryAfter: 2.5)
        let text = try WireJSON.string(wire)
        #expect(text.contains(#""serverErrorCode":"CONFLICT""#))
        #expect(text.contains(#""syncscopeErrorCode":"serverRecordChanged""#))
        #expect(!text.contains("ckErrorCode"), "CloudKit JS reads ckErrorCode in preference to serverErrorCode; our key must not use that name")
        #expect(text.contains(#""retryAfter":2.5"#))
        #expect(text.contains(#""zoneID":{"ownerRecordName":"alice","zoneName":"Notes"}"#))
        let back = try viaJSON(wire)
        #expect(back.retryAfter == 2.5)
        var expected = error
        expected.retryAfter = 2.5  // the wire's retryAfter reaches the error (CKErrorRetryAfterKey)
        #expect(CloudError(back) == expected)
    }

    @Test func errorCodeComesFromCkErrorCodeElseFromServerErrorCode() throws {
        let limit = CloudError(.limitExceeded, "Too many.")
        #expect(CloudError(try viaJSON(WireError(limit))).code == .limitExceeded)
        let plain = try WireJSON.decode(WireError.self, from: #"{"serverErrorCode": "BAD_REQUEST", "reason": "bad"}"#)
        #expect(CloudError(plain).code == .invalidArguments)
        let expired = try WireJSON.decode(WireError.self, from: #"{"serverErrorCode": "CHANGE_TOKEN_EXPIRED", "reason": "old"}"#)
        #expect(CloudError(expired).code == .changeTokenExpired)
        let conflict = try WireJSON.decode(WireError.self, from: #"{"serverErrorCode": "CONFLICT", "reason": "x", "recordName": "r"}"#)
        #expect(CloudError(conflict).code == .serverRecordChanged)
        #expect(CloudError(conflict).recordName == "r")
        let unknown = try WireJSON.decode(WireError.self, from: #"{"serverErrorCode": "SOMETHING_NEW", "reason": "x"}"#)
        #expect(CloudError(unknown).code == .internalError)
        for code in CloudError.Code.allCases {
            #expect(CloudError(try viaJSON(WireError(CloudError(code, "r")))).code == code)
        }
    }

    @Test func resultListMixesItemsAndErrors() throws {
        let json = #"""
        {"records": [
          {"recordName": "a", "recordType": "Note", "fields": {}},
          {"recordName": "b", "serverErrorCode": "NOT_FOUND", "reason": "Record 'b' does not exist."}
        ]}
        """#
        struct Records: Codable { var records: [WireResult<WireRecord>] }
        let decoded = try WireJSON.decode(Records.self, from: json)
        guard decoded.records.count == 2,
              case .success(let a) = decoded.records[0], case .failure(let b) = decoded.records[1]
        else {
            Issue.record("expected a record and an error, got \(decoded.records)")
            return
        }
        #expect(a.recordName == "a")
        #expect(CloudError(b).code == .unknownItem)
        #expect(try viaJSON(decoded.records) == decoded.records)
    }
}

@Suite struct WireChangesTests {
    let token = ServerChangeToken(rawValue: "AbC-_12")

    @Test func zoneChangesRoundTripWithDeletionsAndClientToken() throws {
        let saved = Record(
            recordID: RecordID(recordName: "n1", zoneID: notes), recordType: "Note", fields: ["tags": .list(.string, ["x"])],
            recordChangeTag: "5", created: RecordStamp(timestamp: 1, userRecordName: "alice"),
            modified: RecordStamp(timestamp: 1, userRecordName: "alice"))
        let batch = ZoneChangesBatch(
            zoneID: notes,
            changes: [.changed(saved), .deleted(RecordID(recordName: "n2", zoneID: notes), recordType: "Note")],
            serverChangeToken: token, moreComing: true, clientChangeTokenData: Data([9, 8, 7]))
        let response = WireZoneChangesResponse([
            .success(batch), .failure(CloudError(.zoneNotFound, "No zone 'Gone'.", zoneID: RecordZoneID(zoneName: "Gone", ownerName: "alice"))),
        ])
        let text = try WireJSON.string(response)
        #expect(text.contains(#""clientChangeTokenData":"CQgH""#))
        #expect(text.contains(#"{"deleted":true,"recordName":"n2"}"#), "a deletion carries no type, as Apple's servers send it")
        #expect(text.contains(#""syncToken":"AbC-_12""#))
        let results = try WireJSON.decode(WireZoneChangesResponse.self, from: text).results
        #expect(results.count == 2)
        var typeless = batch
        typeless.changes[1] = .deleted(RecordID(recordName: "n2", zoneID: notes), recordType: "")
        #expect(try results[0].get() == typeless, "the reader learns the deleted record's type from its cache, not the wire")
        #expect(throws: CloudError(.zoneNotFound, "No zone 'Gone'.", zoneID: RecordZoneID(zoneName: "Gone", ownerName: "alice"))) {
            try results[1].get()
        }
    }

    @Test func zoneChangesDecodeFromSpecShapedAnswer() throws {
        let json = #"""
        {"zones": [{"zoneID": {"zoneName": "Notes", "ownerRecordName": "alice"}, "syncToken": "t1", "moreComing": false,
                    "records": [{"recordName": "a", "recordType": "Note", "fields": {"title": {"value": "A"}}},
                                {"recordName": "b", "recordType": "Note", "deleted": true}]}]}
        """#
        let results = try WireJSON.decode(WireZoneChangesResponse.self, from: json).results
        let batch = try #require(results.first).get()
        #expect(batch.zoneID == notes)
        #expect(batch.serverChangeToken == ServerChangeToken(rawValue: "t1"))
        #expect(!batch.moreComing)
        #expect(batch.clientChangeTokenData == nil)
        #expect(batch.changes.map(\.recordID.recordName) == ["a", "b"])
        #expect(batch.changes.last == .deleted(RecordID(recordName: "b", zoneID: notes), recordType: "Note"))
    }

    @Test func zoneWithAnUnreadableRecordBecomesThatZonesErrorOnly() throws {
        let json = #"""
        {"zones": [{"zoneID": {"zoneName": "Notes", "ownerRecordName": "alice"}, "syncToken": "t1", "moreComing": false,
                    "records": [{"recordName": "a", "recordType": "Note", "fields": {"n": {"value": "x", "type": "INT64"}}}]},
                   {"zoneID": {"zoneName": "Other", "ownerRecordName": "alice"}, "syncToken": "t2", "moreComing": false, "records": []}]}
        """#
        let results = try WireJSON.decode(WireZoneChangesResponse.self, from: json).results
        #expect(throws: CloudError.self) { try results[0].get() }
        #expect(try results[1].get().zoneID.zoneName == "Other")
    }

    @Test func databaseChangesRoundTripWithEveryReason() throws {
        func zone(_ name: String) -> RecordZoneID { RecordZoneID(zoneName: name, ownerName: "alice") }
        let batch = DatabaseChangesBatch(
            changes: [
                .zoneChanged(zone("A")), .zoneRemoved(zone("B"), reason: .deleted),
                .zoneRemoved(zone("C"), reason: .purged), .zoneRemoved(zone("D"), reason: .encryptedDataReset),
            ],
            serverChangeToken: token, moreComing: false)
        let text = try WireJSON.string(WireDatabaseChanges(batch))
        #expect(text.hasPrefix(#"{"moreComing":false,"syncToken":"AbC-_12","zones":[{"zoneID":{"ownerRecordName":"alice","zoneName":"A"}},"#))
        #expect(text.contains(#"{"deleted":true,"reason":"purged","zoneID":{"ownerRecordName":"alice","zoneName":"C"}}"#))
        #expect(try DatabaseChangesBatch(WireJSON.decode(WireDatabaseChanges.self, from: text)) == batch)
    }

    @Test func databaseChangesDecodeFromSpecShapedAnswer() throws {
        let json = #"""
        {"zones": [{"zoneID": {"zoneName": "A", "ownerRecordName": "alice"}},
                   {"zoneID": {"zoneName": "B", "ownerRecordName": "alice"}, "deleted": true}],
         "syncToken": "s", "moreComing": true}
        """#
        let batch = try DatabaseChangesBatch(WireJSON.decode(WireDatabaseChanges.self, from: json))
        #expect(batch.changes == [
            .zoneChanged(RecordZoneID(zoneName: "A", ownerName: "alice")),
            .zoneRemoved(RecordZoneID(zoneName: "B", ownerName: "alice"), reason: .deleted),
        ])
        #expect(batch.moreComing)
        let bad = #"{"zones": [{"zoneID": {"zoneName": "B"}, "deleted": true, "reason": "vanished"}], "syncToken": "s", "moreComing": false}"#
        let error = failure { _ = try DatabaseChangesBatch(WireJSON.decode(WireDatabaseChanges.self, from: bad)) }
        #expect(error?.code == .invalidArguments)
        #expect(error?.reason.contains("'vanished'") == true)
    }
}

@Suite struct WireDeterminismTests {
    @Test func sameValueGivesSameBytesWithSortedKeys() throws {
        var fields: [String: FieldValue] = [:]
        for i in 0..<40 { fields["f\(i)"] = .int64(Int64(i)) }
        let a = Record(recordID: RecordID(recordName: "r", zoneID: notes), recordType: "T", fields: RecordFields(fields))
        var reversed = RecordFields()
        for name in fields.keys.sorted().reversed() { reversed[name] = fields[name] }
        let b = Record(recordID: a.recordID, recordType: "T", fields: reversed)
        let first = try WireJSON.encode(WireRecord(a))
        #expect(first == (try WireJSON.encode(WireRecord(b))))
        #expect(first == (try WireJSON.encode(WireRecord(a))))
        let text = String(decoding: first, as: UTF8.self)
        let keys = ["\"deleted\"", "\"fields\"", "\"recordName\"", "\"recordType\""].compactMap { text.range(of: $0)?.lowerBound }
        #expect(keys.count == 4 && keys == keys.sorted())
        let f10 = try #require(text.range(of: "\"f10\"")).lowerBound
        let f9 = try #require(text.range(of: "\"f9\"")).lowerBound
        #expect(f10 < f9, "keys are sorted as strings")
    }

    @Test func prettyOutputIsAlsoSortedAndStable() throws {
        let change = WireDatabaseZoneChange(.zoneRemoved(notes, reason: .purged))
        let pretty = try WireJSON.string(change, prettyPrinted: true)
        #expect(pretty == (try WireJSON.string(change, prettyPrinted: true)))
        #expect(pretty.contains("\n"))
        #expect(try WireJSON.decode(WireDatabaseZoneChange.self, from: pretty) == change)
    }
}
