import Foundation
import SyncCore
import SyncWire
import SyncServer

/// The calls without a route of their own in ``PreparedCall/Route`` (zones/lookup,
/// zones/modify, zones/share, records/changes, zones/changes, subscriptions,
/// assets, users, push tokens, admin and the server's own calls) still take
/// the three steps, generically:
///
/// 1. prepare, outside the lock: the body is decoded into the type its route
///    reads (``DecodedBody``, from the route's ``WebServicesRoute/body``), or
///    the decoding error kept.
/// 2. step, under the lock: the route's handler runs as it always did
///    (as in ``APIDispatcher/answer(_:)``), but its `decode` takes the body decoded
///    in step 1 (throwing its error at the same point, so a malformed call
///    gets the same answer), and its `encode` keeps the value instead of
///    encoding it (``DeferredEncoding``).
/// 3. answer, after the lock: the kept value is encoded.
///
/// The answers are byte for byte those of ``APIDispatcher/answer(_:)`` (the
/// tests compare them). In the journal's replay (`answering == false`)
/// nothing is kept and nothing encoded.
package struct DecodedBody: Sendable {
    /// A `Result<T, CloudError>` for the body type `T` the route decodes.
    private let result: any Sendable

    package init<T: Decodable & Sendable>(_ type: T.Type, _ call: APICall) {
        result = Result<T, CloudError> { () throws(CloudError) -> T in try APIDispatcher.decodeBody(type, call) }
    }

    /// The decoded body, when the route asks for the type it was decoded as.
    package func value<T>(_ type: T.Type) -> Result<T, CloudError>? { result as? Result<T, CloudError> }
}
