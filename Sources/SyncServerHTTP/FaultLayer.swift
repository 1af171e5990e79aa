import SyncServerHost
import Foundation
import Hummingbird
import NIOCore

/// Faults over HTTP: a call goes through the server's fault plan
/// (``ServerHost/performWithFaults(_:)``: errors, latency, read lag, item
/// failures), and an ambiguous commit's answer becomes a dropped connection.
struct FaultLayer: Sendable {
    let perform: @Sendable (APICall) async -> ServerHost.FaultedAnswer

    init(perform: @escaping @Sendable (APICall) async -> ServerHost.FaultedAnswer) {
        self.perform = perform
    }

    init(host: ServerHost) {
        self.init(perform: { await host.performWithFaults($0) })
    }

    /// The response that replaces the answer, if the fault plan says so.
    static func response(for faulted: ServerHost.FaultedAnswer?) -> Response? {
        faulted?.dropConnection == true ? droppedConnection() : nil
    }

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
