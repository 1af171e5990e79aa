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

/// What a ``PreparedCall/Route/whole`` step left for after the lock: the
/// value its route's `encode` kept, and the body types its route had to
/// decode under the lock because its table entry does not declare them
/// (``WebServicesRoute/body``; the route table's tests fail on any). Made for
/// one step and read once, under the same lock: never shared.
package final class DeferredEncoding {
    package var encode: (@Sendable () throws(CloudError) -> Data)?
    package var decodedUnderLock: [String] = []
}

extension APIDispatcher {
    /// The step of a ``PreparedCall/Route/whole`` call: the route runs under
    /// the lock with its body decoded ahead; its answer's JSON is encoded
    /// later, by ``StepOutcome/answer``.
    package func wholeStep(_ prepared: PreparedCall) -> StepOutcome {
        var dispatcher = self
        dispatcher.decodedBody = prepared.decodedBody
        let deferred = DeferredEncoding()
        dispatcher.deferredEncoding = deferred
        let answer: APIAnswer
        if let route = prepared.served, case .dispatcher(let handler, _) = route.handling {
            do throws(CloudError) { answer = try handler(dispatcher, prepared.call, prepared.arguments) } catch { answer = .error(error) }
        } else {
            answer = dispatcher.answer(prepared.call)
        }
        guard let encode = deferred.encode, answer.status == 200, answer.body.isEmpty else {
            var outcome = StepOutcome(answer)
            outcome.bodiesDecodedUnderLock = deferred.decodedUnderLock
            return outcome
        }
        var outcome = StepOutcome(changedState: answer.changedState) {
            var encoded = answer
            do throws(CloudError) { encoded.body = try encode() } catch { return .error(error) }
            return encoded
        }
        outcome.encodesAfterStep = true
        outcome.bodiesDecodedUnderLock = deferred.decodedUnderLock
        return outcome
    }

    /// A route's body: the one decoded ahead when there is one, else decoded now.
    package func decodeRequest<T: Decodable>(_ type: T.Type, _ call: APICall) throws(CloudError) -> T {
        if let decoded = decodedBody?.value(T.self) { return try decoded.get() }
        deferredEncoding?.decodedUnderLock.append(String(describing: T.self))
        return try Self.decodeBody(type, call)
    }

    /// A route's answer: encoded now, kept for after the lock (``wholeStep(_:)``),
    /// or, in the journal's replay, never encoded.
    package func encodeAnswer<T: Encodable & Sendable>(
        _ value: T, prettyPrinted: Bool, changed: Bool, tokenIn: ServerChangeToken?, tokenOut: ServerChangeToken?
    ) throws(CloudError) -> APIAnswer {
        guard answering else { return APIAnswer(body: Data(), changedState: changed, tokenIn: tokenIn, tokenOut: tokenOut) }
        if let deferredEncoding {
            deferredEncoding.encode = { () throws(CloudError) -> Data in try WireJSON.encode(value, prettyPrinted: prettyPrinted) }
            return APIAnswer(body: Data(), changedState: changed, tokenIn: tokenIn, tokenOut: tokenOut)
        }
        return APIAnswer(body: try WireJSON.encode(value, prettyPrinted: prettyPrinted), changedState: changed, tokenIn: tokenIn, tokenOut: tokenOut)
    }
}
