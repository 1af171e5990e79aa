import Foundation
import SyncCore
import SyncServer

/// The body a route reads: its type (decoded ahead of the engine step,
/// outside the lock, unless the route's own preparation decodes it), and
/// its shape, for the OpenAPI document.
package struct RouteBody: Sendable {
    /// The Swift type's name, for tests and messages.
    package let typeName: String
    /// The JSON the route reads (other keys are ignored); `nil` for a body of raw bytes.
    package let schema: BodySchema?
    /// Raw bytes of any content type (an asset upload), not JSON.
    package var isRaw: Bool { schema == nil }
    /// The body decoded as its type, or `nil` when the route decodes it itself
    /// (a prepared route) or does not decode this call's body.
    package let decodeAhead: (@Sendable (APICall) -> DecodedBody?)?

    /// The object's keys.
    package var keys: [String] { schema?.keys ?? [] }

    /// A JSON object decoded ahead as `type`. `optional`: a GET or an empty
    /// body means "no body" to the route (nothing to decode).
    package static func json<T: Decodable & Sendable>(_ type: T.Type, _ fields: [BodySchema.Field], optional: Bool = false) -> RouteBody {
        RouteBody(typeName: String(describing: type), schema: .object(fields)) { call in
            if optional, call.method == "GET" || call.body.isEmpty { return nil }
            return DecodedBody(type, call)
        }
    }

    /// A JSON object the route's own preparation (or handler) decodes.
    package static func decodedByRoute<T: Decodable>(_ type: T.Type, _ fields: [BodySchema.Field]) -> RouteBody {
        RouteBody(typeName: String(describing: type), schema: .object(fields), decodeAhead: nil)
    }

    /// Raw bytes, kept as they are.
    package static let bytes = RouteBody(typeName: "Data", schema: nil, decodeAhead: nil)
}
