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

struct CodableField: Codable, Hashable {
    var name: String
    var value: CodableFieldValue
}

struct CodableStamp: Codable, Hashable {
    var timestamp: Int64
    var userRecordName: String
    var deviceID: String?

    init(_ stamp: RecordStamp) {
        timestamp = stamp.timestamp
        userRecordName = stamp.userRecordName
        deviceID = stamp.deviceID
    }

    var stamp: RecordStamp { RecordStamp(timestamp: timestamp, userRecordName: userRecordName, deviceID: deviceID) }
}

indirect enum CodableFieldValue: Codable, Hashable {
    case string(String)
    case int64(Int64)
    case double(Double)
    case bytes(Data)
    case timestamp(Int64)
    case reference(recordName: String, zoneName: String?, ownerName: String?, action: ReferenceAction)
    case location(latitude: Double, longitude: Double)
    case asset(fileChecksum: String, size: Int64, downloadURL: String?)
    case list(FieldType, [CodableFieldValue])

    init(_ value: FieldValue) {
        switch value {
        case .string(let s): self = .string(s)
        case .int64(let i): self = .int64(i)
        case .double(let d): self = .double(d)
        case .bytes(let d): self = .bytes(d)
        case .timestamp(let t): self = .timestamp(t)
        case .reference(let r):
            self = .reference(recordName: r.recordName, zoneName: r.zoneID?.zoneName, ownerName: r.zoneID?.ownerName, action: r.action)
        case .location(let l): self = .location(latitude: l.latitude, longitude: l.longitude)
        case .asset(let a): self = .asset(fileChecksum: a.fileChecksum, size: a.size, downloadURL: a.downloadURL)
        case .list(let type, let items): self = .list(type, items.map(CodableFieldValue.init))
        }
    }

    var value: FieldValue {
        switch self {
        case .string(let s): return .string(s)
        case .int64(let i): return .int64(i)
        case .double(let d): return .double(d)
        case .bytes(let d): return .bytes(d)
        case .timestamp(let t): return .timestamp(t)
        case .reference(let name, let zoneName, let ownerName, let action):
            let zoneID = zoneName.map { RecordZoneID(zoneName: $0, ownerName: ownerName ?? "") }
            return .reference(RecordReference(recordName: name, zoneID: zoneID, action: action))
        case .location(let latitude, let longitude): return .location(Location(latitude: latitude, longitude: longitude))
        case .asset(let checksum, let size, let url): return .asset(AssetDescriptor(fileChecksum: checksum, size: size, downloadURL: url))
        case .list(let type, let items): return .list(type, items.map(\.value))
        }
    }
}
