import Foundation
import SyncCore

/// A field on the wire: `{"value": V, "type": T}`.
///
/// Decoding never fails on a field's content: the value is kept as raw JSON
/// and checked against its type by ``fieldValue(name:recordName:)``, which
/// explains what is wrong and names the field. On output `type` is always
/// written; on input it may be left out where the JSON value makes it clear
/// (see ``fieldValue(name:recordName:)``).
public struct WireField: Codable, Sendable, Hashable {
    public var value: JSONValue?
    public var type: String?

    private enum CodingKeys: String, CodingKey { case value, type }

    /// A field written as `null` altogether reads as a field without a value.
    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), single.decodeNil() {
            value = nil
            type = nil
            return
        }
        let keys = try decoder.container(keyedBy: CodingKeys.self)
        value = try keys.decodeIfPresent(JSONValue.self, forKey: .value)
        type = try keys.decodeIfPresent(String.self, forKey: .type)
    }

    /// Whether this field has no value (`null`): on a save, the field is removed.
    public var hasNoValue: Bool { value == nil || value == .null }

    public init(value: JSONValue?, type: String? = nil) {
        self.value = value
        self.type = type
    }

    public init(_ value: FieldValue) {
        self.value = Self.json(value)
        self.type = value.typeName
    }

    /// The typed value, or `invalidArguments` naming the field.
    ///
    /// Without `type`: a string is `STRING`, an integer `INT64`, a number with a
    /// fraction `DOUBLE`; an object with `recordName` is a `REFERENCE`, with
    /// `latitude` and `longitude` a `LOCATION`, with `fileChecksum` an `ASSET`;
    /// a non-empty list of such values is the matching `*_LIST` (integers mixed
    /// with fractions make a `DOUBLE_LIST`). Anything else needs `type`.
    public func fieldValue(name: String, recordName: String? = nil) throws(CloudError) -> FieldValue {
        let context = FieldContext(field: name, recordName: recordName)
        guard let value, value != .null else {
            throw context.error("it has no value; send {\"value\": …, \"type\": …}")
        }
        guard let type else { return try Self.inferred(value, context) }
        let (elementType, isList) = try Self.parseType(type, context)
        guard isList else { return try Self.scalar(elementType, value, context, index: nil) }
        guard case .array(let items) = value else {
            throw context.error("its type is \(type), which needs a list, but the value is \(value.kindDescription) (\(value))")
        }
        var result: [FieldValue] = []
        result.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            result.append(try Self.scalar(elementType, item, context, index: index))
        }
        return .list(elementType, result)
    }

    // MARK: Domain → JSON

    static func json(_ value: FieldValue) -> JSONValue {
        switch value {
        case .string(let s): return .string(s)
        case .int64(let i): return .integer(i)
        case .double(let d): return .double(d)
        case .bytes(let data), .encryptedBytes(let data): return .string(data.base64EncodedString())
        case .timestamp(let ms): return .integer(ms)
        case .reference(let reference):
            var object: [String: JSONValue] = [
                "recordName": .string(reference.recordName),
                "action": .string(reference.action.rawValue),
            ]
            if let zoneID = reference.zoneID {
                object["zoneID"] = .object([
                    "zoneName": .string(zoneID.zoneName), "ownerRecordName": .string(zoneID.ownerName),
                ])
            }
            return .object(object)
        case .location(let location):
            return .object(["latitude": .double(location.latitude), "longitude": .double(location.longitude)])
        case .asset(let asset):
            var object: [String: JSONValue] = [
                "fileChecksum": .string(asset.fileChecksum), "size": .integer(asset.size),
            ]
            if let url = asset.downloadURL { object["downloadURL"] = .string(url) }
            return .object(object)
        case .list(_, let items):
            return .array(items.map(json))
        }
    }

    // MARK: JSON → domain

    private static let typeList = "STRING, INT64, DOUBLE, BYTES, ENCRYPTED_BYTES, TIMESTAMP, REFERENCE, LOCATION, ASSET, or one of these with _LIST"

    private static func parseType(_ name: String, _ context: FieldContext) throws(CloudError) -> (FieldType, isList: Bool) {
        if let scalar = FieldType(rawValue: name) { return (scalar, false) }
        if name.hasSuffix("_LIST"), let element = FieldType(rawValue: String(name.dropLast(5))) { return (element, true) }
        throw context.error("'\(name)' is not a field type; use \(typeList)")
    }

    private static func inferredType(_ value: JSONValue) -> FieldType? {
        switch value {
        case .string: return .string
        case .integer: return .int64
        case .double: return .double
        case .object(let object):
            if object["recordName"] != nil { return .reference }
            if object["latitude"] != nil, object["longitude"] != nil { return .location }
            if object["fileChecksum"] != nil { return .asset }
            return nil
        case .null, .bool, .array: return nil
        }
    }

    private static func inferred(_ value: JSONValue, _ context: FieldContext) throws(CloudError) -> FieldValue {
        if case .array(let items) = value {
            guard !items.isEmpty else {
                throw context.error("it is an empty list without a type; add \"type\" (for example STRING_LIST)")
            }
            var elementType: FieldType?
            for (index, item) in items.enumerated() {
                guard let itemType = inferredType(item) else {
                    throw context.error("it has no type, and item \(index) (\(item)) does not make one clear; add \"type\" (\(typeList))")
                }
                switch (elementType, itemType) {
                case (nil, _): elementType = itemType
                case (let known?, _) where known == itemType: break
                case (.int64?, .double), (.double?, .int64): elementType = .double
                case (let known?, _):
                    throw context.error("it has no type, and its list mixes \(known.rawValue) and \(itemType.rawValue) values; a list holds one type")
                }
            }
            let element = elementType ?? .string
            var result: [FieldValue] = []
            result.reserveCapacity(items.count)
            for (index, item) in items.enumerated() {
                result.append(try scalar(element, item, context, index: index))
            }
            return .list(element, result)
        }
        guard let type = inferredType(value) else {
            let hint = if case .bool = value { " (CloudKit has no boolean type: send INT64 0 or 1)" } else { "" }
            throw context.error("it has no type, and its value \(value) does not make one clear\(hint); add \"type\" (\(typeList))")
        }
        return try scalar(type, value, context, index: nil)
    }

    private static func scalar(_ type: FieldType, _ value: JSONValue, _ context: FieldContext, index: Int?) throws(CloudError) -> FieldValue {
        // Worded only for an error: describing the value costs more than converting it.
        var what: String { index.map { "item \($0) (\(value))" } ?? "the value \(value)" }
        func mismatch(_ expected: String) -> CloudError {
            context.error("\(what) is not a valid \(type.rawValue): expected \(expected)")
        }
        switch type {
        case .string:
            guard case .string(let s) = value else { throw mismatch("a string") }
            return .string(s)
        case .int64:
            guard let i = integer(value) else { throw mismatch("an integer") }
            return .int64(i)
        case .double:
            guard let d = number(value) else { throw mismatch("a number") }
            return .double(d)
        case .bytes:
            guard case .string(let s) = value else { throw mismatch("base64 text") }
            guard let data = decodeBase64(s) else { throw context.error("\(what) is not valid base64, as BYTES needs") }
            return .bytes(data)
        case .encryptedBytes:
            guard case .string(let s) = value else { throw mismatch("base64 text") }
            guard let data = decodeBase64(s) else { throw context.error("\(what) is not valid base64, as ENCRYPTED_BYTES needs") }
            return .encryptedBytes(data)
        case .timestamp:
            guard let ms = integer(value) else { throw mismatch("whole milliseconds since 1970-01-01T00:00:00Z") }
            return .timestamp(ms)
        case .reference:
            guard case .object(let object) = value else { throw mismatch("{\"recordName\", \"zoneID\"?, \"action\"}") }
            guard case .string(let recordName)? = object["recordName"] else {
                throw context.error("\(what) is not a valid REFERENCE: \"recordName\" must be a string")
            }
            var zoneID: RecordZoneID?
            switch object["zoneID"] {
            case nil, .null?: zoneID = nil
            case .object(let zone)?:
                guard case .string(let zoneName)? = zone["zoneName"] else {
                    throw context.error("\(what) is not a valid REFERENCE: \"zoneID\" needs a string \"zoneName\"")
                }
                var owner = ""
                switch zone["ownerRecordName"] {
                case nil, .null?: break
                case .string(let name)?: owner = name
                default: throw context.error("\(what) is not a valid REFERENCE: \"zoneID.ownerRecordName\" must be a string")
                }
                zoneID = RecordZoneID(zoneName: zoneName, ownerName: owner)
            default:
                throw context.error("\(what) is not a valid REFERENCE: \"zoneID\" must be {\"zoneName\", \"ownerRecordName\"}")
            }
            var action = ReferenceAction.none
            switch object["action"] {
            case nil, .null?: break
            case .string(let name)?:
                guard let parsed = ReferenceAction(rawValue: name) else {
                    throw context.error("\(what) is not a valid REFERENCE: action '\(name)' is not NONE, DELETE_SELF or VALIDATE")
                }
                action = parsed
            default: throw context.error("\(what) is not a valid REFERENCE: \"action\" must be NONE, DELETE_SELF or VALIDATE")
            }
            return .reference(RecordReference(recordName: recordName, zoneID: zoneID, action: action))
        case .location:
            guard case .object(let object) = value else { throw mismatch("{\"latitude\", \"longitude\"}") }
            guard let latitude = object["latitude"].flatMap(number), let longitude = object["longitude"].flatMap(number) else {
                throw context.error("\(what) is not a valid LOCATION: \"latitude\" and \"longitude\" must both be numbers")
            }
            return .location(Location(latitude: latitude, longitude: longitude))
        case .asset:
            guard case .object(let object) = value else { throw mismatch("{\"fileChecksum\", \"size\", \"downloadURL\"?}") }
            guard case .string(let checksum)? = object["fileChecksum"] else {
                throw context.error("\(what) is not a valid ASSET: \"fileChecksum\" must be a string")
            }
            guard let size = object["size"].flatMap(integer) else {
                throw context.error("\(what) is not a valid ASSET: \"size\" must be an integer")
            }
            var url: String?
            switch object["downloadURL"] {
            case nil, .null?: url = nil
            case .string(let s)?: url = s
            default: throw context.error("\(what) is not a valid ASSET: \"downloadURL\" must be a string")
            }
            return .asset(AssetDescriptor(fileChecksum: checksum, size: size, downloadURL: url))
        }
    }

    private static func integer(_ value: JSONValue) -> Int64? {
        switch value {
        case .integer(let i): i
        case .double(let d): Int64(exactly: d)
        default: nil
        }
    }

    private static func number(_ value: JSONValue) -> Double? {
        switch value {
        case .integer(let i): Double(i)
        case .double(let d): d
        default: nil
        }
    }

    /// Standard base64; URL-safe letters and missing padding are accepted too.
    private static func decodeBase64(_ text: String) -> Data? {
        if let data = Data(base64Encoded: text) { return data }
        var normalized = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while normalized.utf8.count % 4 != 0 { normalized.append("=") }
        return Data(base64Encoded: normalized)
    }
}

/// Names the field (and record) in conversion errors.
struct FieldContext {
    var field: String
    var recordName: String?

    func error(_ message: String) -> CloudError {
        let place = recordName.map { "Field '\(field)' of record '\($0)'" } ?? "Field '\(field)'"
        return CloudError(.invalidArguments, "\(place): \(message).", recordName: recordName)
    }
}
