import Foundation
import SyncCore
import SyncWire
import SyncServer

/// How a checkpoint's state (a ``ServerStateFile``) is stored in the journal database.
///
/// Version 2 (written now), compact binary, in two parts:
/// - a header: the 8 bytes `SSCKPT\r\n` and the version, a 32-bit little-endian number;
/// - everything but the records as JSON (zones with empty record lists, change
///   logs, tombstones, users, subscriptions, devices), prefixed by its length;
/// - then the records of every zone, in the order the JSON lists the zones
///   (each container's public zone, then each user's private zones): a count,
///   then per record its name, type, change tag, stamps, sequence and fields,
///   with lengths in front and numbers in fixed little-endian form.
///
/// Version 1 is the whole state as JSON (`{` first); it is still read, so
/// data folders from before keep working. Any other version is refused with
/// a sentence naming it. The checkpoint's CRC-32 is kept beside it by ``Journal``.
enum CheckpointFormat {
    static let magic: [UInt8] = Array("SSCKPT\r\n".utf8)
    static let version: UInt32 = 2

    struct UnknownVersion: Error, CustomStringConvertible {
        var version: UInt32
        var description: String {
            "the checkpoint is in format version \(version), and this syncscope reads versions 1 and 2 only: start the data folder with the syncscope that wrote it"
        }
    }

    struct Damaged: Error, CustomStringConvertible {
        var what: String
        var description: String { "the checkpoint cannot be read: \(what)" }
    }

    static func encode(_ file: ServerStateFile) throws -> Data {
        var rest = file
        var zones: [ServerStateFile.Zone] = []
        forEachZone(&rest) { zone in
            zones.append(zone)
            zone.records = []
        }
        let json = try WireJSON.encode(rest)
        var writer = BinaryWriter()
        writer.bytes.reserveCapacity(json.count + zones.reduce(0) { $0 + $1.records.count } * 160 + 64)
        writer.bytes.append(contentsOf: magic)
        writer.fixed(UInt32(version))
        writer.fixed(UInt64(json.count))
        writer.bytes.append(contentsOf: json)
        for zone in zones {
            writer.fixed(UInt64(zone.records.count))
            for record in zone.records { writer.record(record) }
        }
        return Data(writer.bytes)
    }

    static func decode(_ data: Data) throws -> ServerStateFile {
        if data.first == UInt8(ascii: "{") {
            return try WireJSON.decode(ServerStateFile.self, from: data)
        }
        return try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) throws -> ServerStateFile in
            var reader = BinaryReader(raw)
            guard raw.count >= magic.count, Array(raw.prefix(magic.count)) == magic else {
                throw Damaged(what: "it starts with neither a SyncScope checkpoint header nor JSON")
            }
            reader.offset = magic.count
            let found: UInt32 = try reader.fixed()
            guard found == version else { throw UnknownVersion(version: found) }
            let length = Int(try reader.fixed() as UInt64)
            let json = Data(try reader.take(length))
            var file = try WireJSON.decode(ServerStateFile.self, from: json)
            var failure: (any Error)?
            forEachZone(&file) { zone in
                guard failure == nil else { return }
                do {
                    let count = Int(try reader.fixed() as UInt64)
                    guard count <= raw.count else { throw Damaged(what: "a zone claims \(count) records") }
                    var records: [ServerStateFile.StoredRecord] = []
                    records.reserveCapacity(count)
                    for _ in 0..<count { records.append(try reader.record()) }
                    zone.records = records
                } catch {
                    failure = error
                }
            }
            if let failure { throw failure }
            guard reader.offset == raw.count else { throw Damaged(what: "\(raw.count - reader.offset) bytes follow the last record") }
            return file
        }
    }

    /// Every zone of the file, in the file's order.
    private static func forEachZone(_ file: inout ServerStateFile, _ body: (inout ServerStateFile.Zone) -> Void) {
        for c in file.containers.indices {
            body(&file.containers[c].publicZone)
            for u in file.containers[c].users.indices {
                for z in file.containers[c].users[u].privateZones.indices {
                    body(&file.containers[c].users[u].privateZones[z])
                }
            }
        }
    }
}

/// Little-endian, length-prefixed binary writing, shared by the checkpoint and the journal's binary rows (`JournaledCallBody`).
struct BinaryWriter {
    var bytes: [UInt8] = []

    mutating func fixed<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func string(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            fixed(UInt32(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    mutating func blob(_ data: Data) {
        fixed(UInt32(data.count))
        bytes.append(contentsOf: data)
    }

    mutating func optionalString(_ text: String?) {
        if let text {
            bytes.append(1)
            string(text)
        } else {
            bytes.append(0)
        }
    }

    mutating func stamp(_ stamp: WireStamp) {
        fixed(stamp.timestamp)
        string(stamp.userRecordName)
        optionalString(stamp.deviceID)
    }

    mutating func record(_ record: ServerStateFile.StoredRecord) {
        string(record.recordName)
        string(record.recordType)
        string(record.recordChangeTag)
        stamp(record.created)
        stamp(record.modified)
        fixed(record.sequence)
        fixed(UInt32(record.fields.count))
        // Sorted, so the same state gives the same bytes.
        for name in record.fields.keys.sorted() {
            let field = record.fields[name]!
            string(name)
            optionalString(field.type)
            if let value = field.value {
                bytes.append(1)
                json(value)
            } else {
                bytes.append(0)
            }
        }
    }

    mutating func json(_ value: JSONValue) {
        switch value {
        case .null: bytes.append(0)
        case .bool(let flag): bytes.append(flag ? 2 : 1)
        case .integer(let number):
            bytes.append(3)
            fixed(number)
        case .double(let number):
            bytes.append(4)
            fixed(number.bitPattern)
        case .string(let text):
            bytes.append(5)
            string(text)
        case .array(let items):
            bytes.append(6)
            fixed(UInt32(items.count))
            for item in items { json(item) }
        case .object(let members):
            bytes.append(7)
            fixed(UInt32(members.count))
            for key in members.keys.sorted() {
                string(key)
                json(members[key]!)
            }
        }
    }
}

/// Reads what ``BinaryWriter`` wrote; a short or malformed input throws ``CheckpointFormat/Damaged``, never traps.
struct BinaryReader {
    let raw: UnsafeRawBufferPointer
    var offset = 0

    init(_ raw: UnsafeRawBufferPointer) { self.raw = raw }

    mutating func take(_ count: Int) throws -> UnsafeRawBufferPointer {
        guard count >= 0, count <= raw.count - offset else { throw CheckpointFormat.Damaged(what: "it ends in the middle of a record") }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + count)])
    }

    mutating func fixed<T: FixedWidthInteger>() throws -> T {
        let bytes = try take(MemoryLayout<T>.size)
        return T(littleEndian: bytes.loadUnaligned(as: T.self))
    }

    mutating func byte() throws -> UInt8 {
        try take(1)[0]
    }

    mutating func string() throws -> String {
        let count = Int(try fixed() as UInt32)
        let bytes = try take(count)
        return String(decoding: bytes, as: UTF8.self)
    }

    mutating func blob() throws -> Data {
        let count = Int(try fixed() as UInt32)
        return Data(try take(count))
    }

    mutating func optionalString() throws -> String? {
        try byte() == 0 ? nil : try string()
    }

    mutating func stamp() throws -> WireStamp {
        let timestamp: Int64 = try fixed()
        return WireStamp(timestamp: timestamp, userRecordName: try string(), deviceID: try optionalString())
    }

    mutating func record() throws -> ServerStateFile.StoredRecord {
        let name = try string()
        let type = try string()
        let tag = try string()
        let created = try stamp()
        let modified = try stamp()
        let sequence: Int64 = try fixed()
        let count = Int(try fixed() as UInt32)
        var fields: [String: WireField] = [:]
        fields.reserveCapacity(count)
        for _ in 0..<count {
            let fieldName = try string()
            let fieldType = try optionalString()
            let value = try byte() == 0 ? nil : try json(depth: 0)
            fields[fieldName] = WireField(value: value, type: fieldType)
        }
        guard var record = Self.recordTemplate else { throw CheckpointFormat.Damaged(what: "a record cannot be made") }
        record.recordName = name
        record.recordType = type
        record.recordChangeTag = tag
        record.fields = fields
        record.created = created
        record.modified = modified
        record.sequence = sequence
        return record
    }

    /// A record to fill in (the type's memberwise initializer is its module's own).
    private static let recordTemplate: ServerStateFile.StoredRecord? = try? WireJSON.decode(
        ServerStateFile.StoredRecord.self,
        from: #"{"recordName":"","recordType":"","recordChangeTag":"","fields":{},"created":{"timestamp":0,"userRecordName":""},"modified":{"timestamp":0,"userRecordName":""},"sequence":0}"#)

    mutating func json(depth: Int) throws -> JSONValue {
        guard depth < 512 else { throw CheckpointFormat.Damaged(what: "a field value is nested more than 512 levels deep") }
        switch try byte() {
        case 0: return .null
        case 1: return .bool(false)
        case 2: return .bool(true)
        case 3: return .integer(try fixed())
        case 4: return .double(Double(bitPattern: try fixed()))
        case 5: return .string(try string())
        case 6:
            let count = Int(try fixed() as UInt32)
            guard count <= raw.count - offset else { throw CheckpointFormat.Damaged(what: "a list claims \(count) items") }
            var items: [JSONValue] = []
            items.reserveCapacity(count)
            for _ in 0..<count { items.append(try json(depth: depth + 1)) }
            return .array(items)
        case 7:
            let count = Int(try fixed() as UInt32)
            guard count <= raw.count - offset else { throw CheckpointFormat.Damaged(what: "an object claims \(count) members") }
            var members: [String: JSONValue] = [:]
            members.reserveCapacity(count)
            for _ in 0..<count {
                let key = try string()
                members[key] = try json(depth: depth + 1)
            }
            return .object(members)
        case let tag:
            throw CheckpointFormat.Damaged(what: "a field value has the unknown kind \(tag)")
        }
    }
}
