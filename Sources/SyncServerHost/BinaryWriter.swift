import Foundation
import SyncCore
import SyncWire
import SyncServer

/// Little-endian, length-prefixed binary writing, shared by the checkpoint and the journal's binary rows (`JournaledCallBody`).
package struct BinaryWriter {
    package var bytes: [UInt8] = []

    package mutating func fixed<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    package mutating func string(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            fixed(UInt32(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    package mutating func blob(_ data: Data) {
        fixed(UInt32(data.count))
        bytes.append(contentsOf: data)
    }

    package mutating func optionalString(_ text: String?) {
        if let text {
            bytes.append(1)
            string(text)
        } else {
            bytes.append(0)
        }
    }

    package mutating func stamp(_ stamp: WireStamp) {
        fixed(stamp.timestamp)
        string(stamp.userRecordName)
        optionalString(stamp.deviceID)
    }

    package mutating func record(_ record: ServerStateFile.StoredRecord) {
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

    package mutating func json(_ value: JSONValue) {
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
