import Foundation
import Hummingbird
import HTTPTypes
import Logging
import NIOCore
import Synchronization
import SyncCore
import SyncWire

/// The limit that `bench --http` compares the server with, measured in the
/// same run: a bare Hummingbird 2 server in this process that reads the same
/// requests, decodes them into the same wire types and answers the same JSON,
/// with no engine, no authentication and no journal behind it.
///
/// - `records/modify`: decodes the request and answers each record back as
///   saved (a change tag and stamps added), as the real server's answer looks.
/// - `changes/zone`: decodes the request and encodes the page of records that
///   the real server returned for that token (recorded beforehand), so both
///   encode the same 400 records.
final class CeilingServer: Sendable {
    /// Pages of `changes/zone` answers, by the request's `syncToken` (`""` for none).
    let pages: Mutex<[String: WireZoneChangesResponse]> = Mutex([:])

    func setPages(_ pages: [String: WireZoneChangesResponse]) {
        self.pages.withLock { $0 = pages }
    }

    func start() async throws -> (port: Int, task: Task<Void, any Error>) {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "ceiling")
        logger.logLevel = .critical
        let responder = CeilingResponder(server: self)
        let app = Application(
            responder: responder,
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0), serverName: "ceiling"),
            onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) },
            logger: logger)
        let task = Task { try await app.run() }
        for await port in ports { return (port, task) }
        throw BenchmarkError("the ceiling server did not start")
    }
}

private struct CeilingResponder: HTTPResponder {
    typealias Context = BasicRequestContext
    let server: CeilingServer

    func respond(to request: Request, context: BasicRequestContext) async throws -> Response {
        let body = try await request.body.collect(upTo: 2 * 1024 * 1024)
        let data = Data(buffer: body)
        let answer: Data
        do {
            if request.uri.path.hasSuffix("/records/modify") {
                let modify = try WireJSON.decode(WireRecordsModifyRequest.self, from: data)
                let now = Int64(Date().timeIntervalSince1970 * 1000)
                let saved: [WireResult<WireRecord>] = modify.operations.enumerated().map { index, operation in
                    var record = operation.record
                    record.recordChangeTag = String(now + Int64(index), radix: 36)
                    record.created = WireStamp(timestamp: now, userRecordName: "bench")
                    record.modified = record.created
                    record.deleted = false
                    return .success(record)
                }
                answer = try WireJSON.encode(WireRecordsResponse(records: saved))
            } else if request.uri.path.hasSuffix("/changes/zone") {
                let changes = try WireJSON.decode(WireZoneChangesRequest.self, from: data)
                let key = changes.zones.first?.syncToken?.rawValue ?? ""
                guard let page = server.pages.withLock({ $0[key] }) else {
                    throw CloudError(.invalidArguments, "The ceiling has no page for this token.")
                }
                answer = try WireJSON.encode(page)
            } else {
                throw CloudError(.invalidArguments, "The ceiling answers records/modify and changes/zone only.")
            }
        } catch let error as CloudError {
            return Response(
                status: .badRequest, headers: [.contentType: "application/json"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: Array(error.reason.utf8))))
        }
        return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(data: answer)))
    }
}
