import Foundation
import SyncCore
import SyncWire
import SyncServer

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
