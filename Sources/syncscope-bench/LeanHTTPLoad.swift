import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// A load generator that is not the bottleneck: keep-alive HTTP/1.1
/// connections on one event-loop thread, requests written as prepared bytes,
/// answers read only as far as the status line and `Content-Length`. It
/// costs a few microseconds a request, where a `URLSession` client costs more
/// than the server it measures.
///
/// Every connection goes to a loopback address; a run is bounded by a count
/// and a time limit.
struct LeanHTTPLoad {
    struct Report {
        var completed: Int
        var seconds: Double
        /// Milliseconds from writing a request to reading the end of its answer.
        var latenciesMs: [Double]
        /// Answers whose status was not 2xx, with the first such answer's head.
        var failures: Int
        var firstFailure: String?

        var perSecond: Double { Double(completed) / seconds }
        func percentile(_ p: Double) -> Double { HTTPBenchmarkSuite.percentile(latenciesMs, p) }
    }

    var host = "127.0.0.1"
    var port: Int
    var connections: Int
    /// Requests in all, spread over the connections.
    var requests: Int
    var timeLimit: Double
    /// Called on the load's thread each time another `answers` answers have
    /// come, over all the connections.
    var every: (answers: Int, action: @Sendable () -> Void)? = nil
    /// The bytes of request number `i` sent on connection `c`: `(c, i) -> bytes`.
    var request: @Sendable (_ connection: Int, _ index: Int) -> [UInt8]

    func run() async throws -> Report {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        do {
            let report = try await run(on: group)
            try await group.shutdownGracefully()
            return report
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    private func run(on group: MultiThreadedEventLoopGroup) async throws -> Report {
        let perConnection = max(1, requests / connections)
        let deadline = NIODeadline.now() + .nanoseconds(Int64(timeLimit * 1e9))
        let started = NIODeadline.now()
        var futures: [EventLoopFuture<LoadHandler.Outcome>] = []
        let answered = AnswerCount(every: every)
        for connection in 0..<connections {
            let promise = group.next().makePromise(of: LoadHandler.Outcome.self)
            let handler = LoadHandler(
                connection: connection, count: perConnection, deadline: deadline, request: request, answered: answered, done: promise)
            let channel = try await ClientBootstrap(group: group)
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                .channelInitializer { channel in channel.pipeline.addHandler(handler) }
                .connect(host: host, port: port).get()
            futures.append(promise.futureResult.always { _ in channel.close(promise: nil) })
        }
        var report = Report(completed: 0, seconds: 0, latenciesMs: [], failures: 0, firstFailure: nil)
        for future in futures {
            let outcome = try await future.get()
            report.completed += outcome.latenciesNs.count
            report.latenciesMs += outcome.latenciesNs.map { Double($0) / 1e6 }
            report.failures += outcome.failures
            report.firstFailure = report.firstFailure ?? outcome.firstFailure
        }
        report.seconds = Double((NIODeadline.now() - started).nanoseconds) / 1e9
        return report
    }

    /// Standard request bytes: `METHOD path HTTP/1.1` with a JSON body, a bearer token and any other headers.
    static func requestBytes(method: String = "POST", path: String, token: String?, headers: [(name: String, value: String)] = [], body: [UInt8]) -> [UInt8] {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n"
        if let token { head += "Authorization: Bearer \(token)\r\n" }
        for header in headers { head += "\(header.name): \(header.value)\r\n" }
        head += "\r\n"
        return Array(head.utf8) + body
    }
}

/// The answers a run's connections have read, for ``LeanHTTPLoad/every``.
private final class AnswerCount: Sendable {
    let count = Atomic<Int>(0)
    let every: (answers: Int, action: @Sendable () -> Void)?

    init(every: (answers: Int, action: @Sendable () -> Void)?) {
        self.every = every
    }

    func add() {
        guard let every else { return }
        let now = count.wrappingAdd(1, ordering: .relaxed).newValue
        if now % max(1, every.answers) == 0 { every.action() }
    }
}

/// One connection's loop: write a request, read its answer, write the next.
private final class LoadHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    struct Outcome: Sendable {
        var latenciesNs: [UInt64]
        var failures: Int
        var firstFailure: String?
    }

    private let connection: Int
    private let count: Int
    private let deadline: NIODeadline
    private let request: @Sendable (Int, Int) -> [UInt8]
    private let answered: AnswerCount
    private let done: EventLoopPromise<Outcome>
    private var sent = 0
    private var sentAt: NIODeadline = .now()
    private var buffer: ByteBuffer?
    private var outcome = Outcome(latenciesNs: [], failures: 0, firstFailure: nil)
    private var finished = false

    init(
        connection: Int, count: Int, deadline: NIODeadline, request: @escaping @Sendable (Int, Int) -> [UInt8], answered: AnswerCount,
        done: EventLoopPromise<Outcome>
    ) {
        self.connection = connection
        self.count = count
        self.deadline = deadline
        self.request = request
        self.answered = answered
        self.done = done
        outcome.latenciesNs.reserveCapacity(count)
    }

    func channelActive(context: ChannelHandlerContext) {
        sendNext(context: context)
    }

    private func sendNext(context: ChannelHandlerContext) {
        guard sent < count, NIODeadline.now() < deadline else {
            finish(nil)
            return
        }
        let bytes = request(connection, sent)
        sent += 1
        var out = context.channel.allocator.buffer(capacity: bytes.count)
        out.writeBytes(bytes)
        sentAt = .now()
        context.writeAndFlush(wrapOutboundOut(out), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        buffer.gather(&incoming)
        while let answerEnd = completeAnswer() {
            let latency = (NIODeadline.now() - sentAt).nanoseconds
            outcome.latenciesNs.append(UInt64(max(0, latency)))
            if let status = answerEnd.status, !(200..<300).contains(status) {
                outcome.failures += 1
                if outcome.firstFailure == nil { outcome.firstFailure = answerEnd.head }
            }
            buffer!.moveReaderIndex(forwardBy: answerEnd.length)
            buffer!.discardReadBytes()
            answered.add()
            sendNext(context: context)
        }
    }

    /// The length of the complete answer at the buffer's start, with its
    /// status (and, for a status other than 2xx, its head and the start of
    /// its body); `nil` while incomplete. Read as bytes: the client's cost
    /// per answer stays small beside the servers' (it shares their CPUs).
    private func completeAnswer() -> (length: Int, status: Int?, head: String)? {
        guard let buffer else { return nil }
        let found = buffer.readableBytesView.withContiguousStorageIfAvailable { view -> (length: Int, status: Int?, head: String)? in
            guard let answer = LeanHTTPLoad.answer(in: view) else { return nil }
            guard let code = answer.status, (200..<300).contains(code) else { return (answer.length, answer.status, LeanHTTPLoad.describe(answer, in: view)) }
            return (answer.length, answer.status, "")
        }
        return found ?? nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(sent < count && NIODeadline.now() < deadline ? "the server closed the connection after \(sent) requests" : nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        finish("connection error: \(error)")
        context.close(promise: nil)
    }

    private func finish(_ failure: String?) {
        guard !finished else { return }
        finished = true
        if let failure {
            outcome.failures += 1
            if outcome.firstFailure == nil { outcome.firstFailure = failure }
        }
        done.succeed(outcome)
    }
}

/// Reading an HTTP/1.1 answer as bytes, for ``LeanHTTPLoad`` and ``LeanHTTPConnection``.
extension LeanHTTPLoad {
    /// Where a complete answer at the start of `view` ends, its status and where its head ends; `nil` while incomplete.
    static func answer(in view: UnsafeBufferPointer<UInt8>) -> (length: Int, status: Int?, headEnd: Int)? {
        guard let headEnd = find([13, 10, 13, 10], in: view) else { return nil }
        // "HTTP/1.1 200 OK": three digits after the first space.
        var status: Int?
        if let space = view[0..<headEnd].firstIndex(of: 32), space + 3 < headEnd {
            let digits = view[(space + 1)...(space + 3)]
            if digits.allSatisfy({ (48...57).contains($0) }) {
                status = digits.reduce(0) { $0 * 10 + Int($1 - 48) }
            }
        }
        var contentLength = 0
        let name = Array("content-length:".utf8)
        var lineStart = 0
        while lineStart < headEnd {
            var lineEnd = lineStart
            while lineEnd < headEnd, view[lineEnd] != 13 { lineEnd += 1 }
            if lineEnd - lineStart > name.count,
               (0..<name.count).allSatisfy({ i in view[lineStart + i] | (name[i] >= 97 && name[i] <= 122 ? 0x20 : 0) == name[i] }) {
                var i = lineStart + name.count
                while i < lineEnd, view[i] == 32 || view[i] == 9 { i += 1 }
                var value = 0
                while i < lineEnd, (48...57).contains(view[i]) {
                    value = value * 10 + Int(view[i] - 48)
                    i += 1
                }
                contentLength = value
            }
            lineStart = lineEnd + 2
        }
        let total = headEnd + 4 + contentLength
        guard view.count >= total else { return nil }
        return (total, status, headEnd)
    }

    /// A complete answer's head and the start of its body, to show in a failure.
    static func describe(_ answer: (length: Int, status: Int?, headEnd: Int), in view: UnsafeBufferPointer<UInt8>) -> String {
        let head = String(decoding: UnsafeBufferPointer(rebasing: view[0..<answer.headEnd]), as: UTF8.self)
        let body = String(decoding: UnsafeBufferPointer(rebasing: view[(answer.headEnd + 4)..<answer.length]).prefix(300), as: UTF8.self)
        return head + "\r\n\r\n" + body
    }

    private static func find(_ needle: [UInt8], in haystack: UnsafeBufferPointer<UInt8>) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        var i = 0
        while i <= haystack.count - needle.count {
            if haystack[i] == needle[0], haystack[i + 1] == needle[1], haystack[i + 2] == needle[2], haystack[i + 3] == needle[3] { return i }
            i += 1
        }
        return nil
    }
}

extension Optional where Wrapped == ByteBuffer {
    /// Appends bytes that came to those gathered so far (the first ones are taken as they are).
    mutating func gather(_ incoming: inout ByteBuffer) {
        if self == nil {
            self = incoming
        } else {
            self!.writeBuffer(&incoming)
        }
    }
}
