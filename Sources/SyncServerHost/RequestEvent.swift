import Foundation
import SyncCore

/// A request as the event feed keeps it: what the HTTP layer had in hand
/// when it answered, nothing computed for the feed. The client it came from
/// (``ClientDirectory``), its error code and its changes are worked out only
/// when a watcher reads the feed.
package struct RequestEvent: Sendable {
    package var method: String
    /// The path as logged (its one spelling), without the query.
    package var path: String
    /// The route's operation (`records/modify`, `webcourier`, `events`); `nil` for a path the API does not have.
    package var operation: String?
    package var user: String?
    package var isServerAdmin: Bool
    /// `X-SyncScope-Device`.
    package var device: String?
    package var userAgent: String?
    /// Sent by an inspector (`X-SyncScope-Inspector`): its reads are kept out of the request log.
    package var isInspector: Bool
    package var tokenIn: ServerChangeToken?
    package var tokenOut: ServerChangeToken?
    package var status: Int
    package var latency: Duration
    /// The fault the fault plan applied ("fault: THROTTLED, retry in 3 s").
    package var fault: String?
    /// The request's body and the answer's, kept by reference (empty once the feed's body budget is spent).
    package var requestBody: Data
    package var answerBody: Data
    /// The route reads a JSON body (not raw bytes): a POST it answered 200 had
    /// a body that parsed, so a watcher is given that body as it came.
    package var bodyIsJSON: Bool
    /// The zones and records the request changed (``APIAnswer/changes``).
    package var changes: [CallChange]

    package init(
        method: String, path: String, operation: String?, user: String?, isServerAdmin: Bool, device: String?, userAgent: String?,
        isInspector: Bool, tokenIn: ServerChangeToken?, tokenOut: ServerChangeToken?, status: Int, latency: Duration, fault: String?,
        requestBody: Data, answerBody: Data, bodyIsJSON: Bool = false, changes: [CallChange] = []
    ) {
        self.method = method
        self.path = path
        self.operation = operation
        self.user = user
        self.isServerAdmin = isServerAdmin
        self.device = device
        self.userAgent = userAgent
        self.isInspector = isInspector
        self.tokenIn = tokenIn
        self.tokenOut = tokenOut
        self.status = status
        self.latency = latency
        self.fault = fault
        self.requestBody = requestBody
        self.answerBody = answerBody
        self.bodyIsJSON = bodyIsJSON
        self.changes = changes
    }

    /// The web courier token a long-poll's path names (`…/webcourier/{token}.{secret}`):
    /// the device part, without the URL's secret (which the event's path shows cut short).
    package var courierToken: String? {
        guard operation == "webcourier", let last = path.split(separator: "/").last.map(String.init) else { return nil }
        return APIDispatcher.webcourierParts(last)?.deviceID ?? last
    }
}
