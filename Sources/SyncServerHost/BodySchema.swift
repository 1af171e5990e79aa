import Foundation

/// The shape of a JSON request body, as a route declares it (``RouteBody``)
/// and the OpenAPI document writes it: the keys a route reads, their types,
/// and which it needs. Keys it does not read are ignored, so an object is
/// never closed.
package indirect enum BodySchema: Sendable {
    case string
    case integer
    case number
    case boolean
    /// Any JSON value.
    case any
    case array(BodySchema)
    case object([Field])

    package struct Field: Sendable {
        package var name: String
        package var schema: BodySchema
        package var required: Bool
    }

    /// The object's keys, in declaration order; none for any other shape.
    package var keys: [String] {
        if case .object(let fields) = self { return fields.map(\.name) }
        return []
    }

    /// The JSON Schema (OpenAPI 3.1) of this shape.
    package var jsonSchema: [String: Any] {
        switch self {
        case .string: return ["type": "string"]
        case .integer: return ["type": "integer"]
        case .number: return ["type": "number"]
        case .boolean: return ["type": "boolean"]
        case .any: return [:]
        case .array(let items): return ["type": "array", "items": items.jsonSchema] as [String: Any]
        case .object(let fields):
            var schema: [String: Any] = [
                "type": "object",
                "properties": Dictionary(fields.map { ($0.name, $0.schema.jsonSchema) }, uniquingKeysWith: { first, _ in first }),
            ]
            let required = fields.filter(\.required).map(\.name)
            if !required.isEmpty { schema["required"] = required }
            return schema
        }
    }
}

/// Shorthands for declaring bodies in the route table: `"zoneName"` is an
/// optional key, `need("zoneName")` a required one.
extension BodySchema.Field {
    package init(_ name: String, _ schema: BodySchema) {
        self.init(name: name, schema: schema, required: false)
    }

    package static func need(_ name: String, _ schema: BodySchema) -> BodySchema.Field {
        BodySchema.Field(name: name, schema: schema, required: true)
    }
}

extension BodySchema {
    package static let strings = BodySchema.array(.string)
    /// `{"zoneName", "ownerRecordName"?}`.
    package static let zoneID = BodySchema.object([.need("zoneName", .string), Field("ownerRecordName", .string), Field("zoneType", .string)])
    /// `{"emailAddress"?, "userRecordName"?, "phoneNumber"?}`.
    package static let lookupInfo = BodySchema.object([Field("emailAddress", .string), Field("userRecordName", .string), Field("phoneNumber", .string)])
}
