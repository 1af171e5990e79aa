import Foundation
import SyncCore
import SyncWire
import SyncServer

/// Reads what ``BinaryWriter`` wrote; a short or malformed input throws ``CheckpointFormat/Damaged``, never traps.
package struct BinaryReader {
    package let raw: UnsafeRawBufferPointer
    package var offset = 0

    package init(_ raw: UnsafeRawBufferPointer) { self.raw = raw }

    package mutating func take(_ count: Int) throws -> UnsafeRawBufferPointer {
        guard count >= 0, count <= raw.count - offset else { throw CheckpointFormat.Damaged(what: "it ends in the middle of a record") }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + count)])
    }

    package mutating func fixed<T: FixedWidthInteger>() throws -> T {
        let bytes = try take(MemoryLayout<T>.size)
        return T(littleEndian: bytes.loadUnaligned(as: T.self))
    }

    package mutating func byte() throws -> UInt8 {
        try take(1)[0]
    }

    package mutating func string() throws -> String {
        let count = Int(try fixed() as UInt32)
        let bytes = try take(count)
        return String(decoding: bytes, as: UTF8.self)
    }

    package mutating func blob() throws -> Data {
        let count = Int(try fixed() as UInt32)
        return Data(try take(count))
    }

    package mutating func optionalString() throws -> String? {
        try byte() == 0 ? nil : try string()
    }

    package mutating func stamp() throws -> WireStamp {
        let timestamp: Int64 = try fixed()
        return WireStamp(timestamp: timestamp, userRecordName: try string(), deviceID: try optionalString())
    }

    package mutating func record() throws -> ServerStateFile.StoredRecord {
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

    package mutating func json(depth: Int) throws -> JSONValue {
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
