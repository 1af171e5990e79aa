import SyncServerHost
import Hummingbird
import NIOCore

extension APIResponder {
    /// An ambiguous commit over HTTP: the change is already applied and
    /// journaled; the answer announces a body and then the connection closes
    /// before any of it is written, so the client sees a network failure and
    /// cannot tell whether its request was applied.
    static func droppedConnection() -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody(contentLength: 1_024) { _ in
                throw CancellationError()
            })
    }
}
