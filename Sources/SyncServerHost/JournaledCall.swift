import Foundation
import SyncCore

/// One journaled call as bytes: what a shared journal (PostgreSQL) keeps
/// for a call that may change the state. The one place that encodes and
/// decodes a call for a journal of opaque rows.
///
/// Layout (little-endian): the magic `SJC` and format version 2 (one byte),
/// a flags byte (bit 0: server admin, bit 1: server call, bit 2: has an
/// origin), then length-prefixed (UInt32) UTF-8 fields: method, path, user
/// (`0xFFFFFFFF` for none), device (same), then, with an origin, its node
/// and the node's request number (UInt64), then the body's length and bytes.
///
/// Versions 1 and 2 are laid out alike and both read back. A version 2 row
/// may be timed before the row ahead of it (it is applied at
/// `JournalRow.appliedTime(after:)`); a syncscope that reads version 1
/// only would apply it at its recorded time instead, so it refuses it.
///
/// Query parameters are not kept: they shape an answer, never the state.
/// The **origin** names the node that appended the call and its request, so
/// that node answers from its own, already prepared call when it applies
/// the row; every other node (and every later replay) decodes the call.
package struct JournaledCall: Equatable, Sendable {
    package struct Origin: Equatable, Sendable {
        package var node: String
        package var request: UInt64
    }

    package var call: APICall
    package var origin: Origin?

    package static let magic: [UInt8] = [0x53, 0x4A, 0x43]  // "SJC"
    package static let version: UInt8 = 2
    /// The versions ``decode(_:)`` reads.
    package static let readableVersions: ClosedRange<UInt8> = 1...2

    /// A row that does not read back as a call.
    package struct Malformed: Error, CustomStringConvertible {
        package var description: String
    }

    package func encoded() -> Data {
        var out = Data()
        out.reserveCapacity(call.body.count + call.path.utf8.count + 64)
        out.append(contentsOf: Self.magic)
        out.append(Self.version)
        var flags: UInt8 = 0
        if call.isServerAdmin { flags |= 1 }
        if call.isServerCall { flags |= 2 }
        if origin != nil { flags |= 4 }
        out.append(flags)
        Self.append(call.method, to: &out)
        Self.append(call.path, to: &out)
        Self.append(call.user, to: &out)
        Self.append(call.deviceID, to: &out)
        if let origin {
            Self.append(origin.node, to: &out)
            Self.append(origin.request, to: &out)
        }
        Self.append(UInt32(call.body.count), to: &out)
        out.append(call.body)
        return out
    }

    package static func decode(_ data: Data) throws(Malformed) -> JournaledCall {
        var reader = Reader(bytes: [UInt8](data))
        guard try reader.take(3) == magic else { throw Malformed(description: "the row is not a SyncScope call (no SJC header)") }
        let version = try reader.byte()
        guard readableVersions.contains(version) else {
            throw Malformed(
                description: version > Self.version
                    ? "the row is a call in format version \(version), written by a later syncscope (this one reads versions 1 and 2): run that version on every node"
                    : "the row is a call in format version \(version), and this syncscope reads versions 1 and 2")
        }
        let flags = try reader.byte()
        guard let method = try reader.string(), let path = try reader.string() else { throw Malformed(description: "the row has no method or path") }
        let user = try reader.string()
        let device = try reader.string()
        var origin: Origin?
        if flags & 4 != 0 {
            guard let node = try reader.string() else { throw Malformed(description: "the row's origin has no node") }
            origin = Origin(node: node, request: try reader.uint64())
        }
        let length = Int(try reader.uint32())
        let body = Data(try reader.take(length))
        guard reader.isAtEnd else { throw Malformed(description: "the row has bytes after its body") }
        let call = APICall(
            method: method, path: path, body: body, user: user, deviceID: device, isServerAdmin: flags & 1 != 0, isServerCall: flags & 2 != 0)
        return JournaledCall(call: call, origin: origin)
    }

    private static func append(_ value: UInt32, to out: inout Data) {
        withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
    }

    private static func append(_ value: UInt64, to out: inout Data) {
        withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
    }

    private static func append(_ text: String?, to out: inout Data) {
        guard let text else { return append(UInt32.max, to: &out) }
        let bytes = Array(text.utf8)
        append(UInt32(bytes.count), to: &out)
        out.append(contentsOf: bytes)
    }

    private struct Reader {
        package var bytes: [UInt8]
        package var offset = 0

        package var isAtEnd: Bool { offset == bytes.count }

        package mutating func take(_ count: Int) throws(Malformed) -> [UInt8] {
            guard count >= 0, count <= bytes.count - offset else { throw Malformed(description: "the row is cut short") }
            defer { offset += count }
            return Array(bytes[offset..<offset + count])
        }

        package mutating func byte() throws(Malformed) -> UInt8 { try take(1)[0] }

        package mutating func uint32() throws(Malformed) -> UInt32 {
            try take(4).reversed().reduce(0) { $0 << 8 | UInt32($1) }
        }

        package mutating func uint64() throws(Malformed) -> UInt64 {
            try take(8).reversed().reduce(0) { $0 << 8 | UInt64($1) }
        }

        package mutating func string() throws(Malformed) -> String? {
            let length = try uint32()
            guard length != .max else { return nil }
            guard let text = String(validating: try take(Int(length)), as: UTF8.self) else { throw Malformed(description: "the row holds text that is not UTF-8") }
            return text
        }
    }
}
