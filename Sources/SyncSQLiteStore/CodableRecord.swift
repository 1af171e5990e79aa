import Foundation
import SyncCore

/// A Codable mirror of ``Record`` for local stores (the model types are not
/// Codable themselves). Field values keep their exact type, lists their
/// element type.
struct CodableRecord: Codable, Hashable {
    var recordName: String
    var zoneName: String
    var ownerName: String
    var recordType: String
    var fields: [CodableField]
    var recordChangeTag: String?
    var created: CodableStamp?
    var modified: CodableStamp?

    init(_ record: Record) {
        recordName = record.recordID.recordName
        zoneName = record.recordID.zoneID.zoneName
        ownerName = record.recordID.zoneID.ownerName
        recordType = record.recordType
        fields = record.fields.map { CodableField(name: $0.name, value: CodableFieldValue($0.value)) }
        recordChangeTag = record.recordChangeTag
        created = record.created.map(CodableStamp.init)
        modified = record.modified.map(CodableStamp.init)
    }

    var record: Record {
        Record(
            recordID: RecordID(recordName: recordName, zoneID: RecordZoneID(zoneName: zoneName, ownerName: ownerName)),
            recordType: recordType,
            fields: RecordFields(fields.map { Field(name: $0.name, value: $0.value.value) }),
            recordChangeTag: recordChangeTag,
            created: created?.stamp,
            modified: modified?.stamp)
    }

    static func encode(_ record: Record) throws -> Data {
        try encoder.encode(CodableRecord(record))
    }

    static func decode(_ data: Data) throws -> Record {
        try decoder.decode(CodableRecord.self, from: data).record
    }

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
        return encoder
    }

    private static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
        return decoder
    }
}
