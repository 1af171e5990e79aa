import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A bare HTTP/1.1 client on a socket: sends exactly the bytes it is given
/// (malformed ones too, which URLSession would never send) and reads one answer.
public struct RawHTTP: Sendable {
    public struct Answer: @unchecked Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: Data
        public var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
        public var reason: String { json["reason"] as? String ?? "" }
        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    public let port: Int

    public init(port: Int) { self.port = port }

    /// A connected socket with a receive time limit.
    public func connectNow(timeout: Double = 10) throws -> Int32 {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw RawError("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Foundation.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw RawError("connect: \(String(cString: strerror(errno)))")
        }
        var time = timeval()
        time.tv_sec = .init(Int(timeout))
        time.tv_usec = .init(Int((timeout - Double(Int(timeout))) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    public func writeNow(_ fd: Int32, _ data: Data) throws {
        var offset = 0
        while offset < data.count {
            let sent = data.withUnsafeBytes { buffer in
                #if canImport(Glibc)
                send(fd, buffer.baseAddress! + offset, data.count - offset, Int32(MSG_NOSIGNAL))
                #else
                send(fd, buffer.baseAddress! + offset, data.count - offset, 0)
                #endif
            }
            guard sent > 0 else { throw RawError("send: \(String(cString: strerror(errno)))") }
            offset += sent
        }
    }

    /// Reads one answer: its head, then `content-length` bytes (or up to the close).
    public func readNow(_ fd: Int32) throws -> Answer {
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        var headEnd: Range<Data.Index>?
        var expected: Int?
        while true {
            if headEnd == nil, let range = received.range(of: Data("\r\n\r\n".utf8)) {
                headEnd = range
                let head = String(decoding: received[..<range.lowerBound], as: UTF8.self)
                for line in head.split(separator: "\r\n").dropFirst() {
                    let parts = line.split(separator: ":", maxSplits: 1)
                    if parts.count == 2, parts[0].lowercased() == "content-length" { expected = Int(parts[1].trimmingCharacters(in: .whitespaces)) }
                }
            }
            if let headEnd, let expected, received.count - headEnd.upperBound >= expected { break }
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 {
                if count < 0, received.isEmpty { throw RawError("no answer: \(String(cString: strerror(errno)))") }
                break
            }
            received.append(contentsOf: buffer[0..<count])
        }
        guard let headEnd else { throw RawError("no complete answer: \(String(decoding: received.prefix(200), as: UTF8.self))") }
        let head = String(decoding: received[..<headEnd.lowerBound], as: UTF8.self)
        let lines = head.split(separator: "\r\n")
        let statusParts = lines.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw RawError("bad status line: \(lines.first ?? "")") }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2 { headers[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespaces) }
        }
        return Answer(status: status, headers: headers, body: Data(received[headEnd.upperBound...]))
    }

    /// Sends `bytes` on a new connection and reads the answer.
    public func exchange(_ bytes: Data, timeout: Double = 10) async throws -> Answer {
        try await Self.offThePool {
            let fd = try connectNow(timeout: timeout)
            defer { close(fd) }
            try writeNow(fd, bytes)
            return try readNow(fd)
        }
    }

    // The socket calls block: they run on a thread of their own, never on
    // the task pool, which the server in this process needs to answer.
    public static func offThePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
        }
    }

    public func connect(timeout: Double = 10) async throws -> Int32 { try await Self.offThePool { try connectNow(timeout: timeout) } }
    public func write(_ fd: Int32, _ data: Data) async throws { try await Self.offThePool { try writeNow(fd, data) } }
    public func read(_ fd: Int32) async throws -> Answer { try await Self.offThePool { try readNow(fd) } }
    public func isClosed(_ fd: Int32) async -> Bool { (try? await Self.offThePool { isClosedNow(fd) }) ?? false }

    /// A request as text: method, path, headers, body; `Connection: close` added.
    public static func request(_ method: String, _ path: String, headers: [(String, String)] = [], body: Data? = nil) -> Data {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if let body { text += "Content-Length: \(body.count)\r\n" }
        text += "\r\n"
        var data = Data(text.utf8)
        if let body { data.append(body) }
        return data
    }

    /// Whether the server closed the connection (a read gets end-of-file).
    public func isClosedNow(_ fd: Int32) -> Bool {
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, 0) == 0
    }
}

public struct RawError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
