import Foundation
import SyncCore
import SyncServer

/// How a journal keeps one call's body, and how a replay gets the call back
/// prepared: the one place the body's row format lives. The SQLite journal
/// keeps the encoded call in its columns; a journal of opaque rows (the
/// shared PostgreSQL journal) wraps the same encoded call in its own bytes
/// (`JournaledCall`) and prepares a decoded row with ``decode(_:)``.
///
/// A row is the call's method, path, user, device and admin flag, and a
/// body in one of two forms, told apart by its first bytes (a per-row
/// format tag, so a journal may hold both):
/// - **JSON**: the request body as the client sent it. Every call but
///   `records/modify` is kept so, and every row written before the binary
///   form existed; they replay through ``APIDispatcher/prepare(_:)``. A
///   `records/modify` that saves a share (`cloudkit.share`) or names a
///   record's `parent` or `share` is kept as JSON too: its share keys and
///   references have no place in the binary form.
/// - **binary `records/modify`**: the call's plan, already decoded and
///   checked (``APIDispatcher/ModifyRecordsPlan``: zone, atomic flag,
///   client token, desired keys and each operation's type, record and
///   removed fields), in little-endian, length-prefixed form. It starts with
///   the 4 bytes `00 53 53 4A` (`\0SSJ`, which no JSON text starts with),
///   then a kind byte (1: `records/modify`) and a version byte (1).
///   Replaying it decodes no JSON and builds no record from wire fields.
///
/// The caller is not in the body: it is the row's user and device, as for JSON rows.
package enum JournaledCallBody {
    package static let magic: [UInt8] = [0x00, 0x53, 0x53, 0x4A]
    package static let modifyRecordsKind: UInt8 = 1
    package static let modifyRecordsVersion: UInt8 = 1

    /// A binary row that does not read back.
    package struct Damaged: Error, CustomStringConvertible {
        package var what: String
        package var description: String { "a journal row cannot be read: \(what)" }
    }

    /// The call as its journal row keeps it: a `records/modify` with its
    /// plan in binary form, any other call as it came.
    package static func encode(_ prepared: PreparedCall) -> APICall {
        // A plan that saves a share, or names a parent, stays JSON: its share keys and references are not in the binary form.
        guard case .modifyRecords(_, let plan) = prepared.route, !plan.keptAsJSON else { return prepared.call }
        var call = prepared.call
        call.body = encode(plan)
        return call
    }

    /// A journal row's call prepared for the engine step, outside the lock.
    /// A JSON row is prepared as the call it was; a binary row gets its plan
    /// back (its caller from the row's user and device). A binary row that
    /// cannot be read, or on a path that is not `records/modify`, throws.
    package static func decode(_ row: APICall) throws -> PreparedCall {
        guard isBinary(row.body) else { return APIDispatcher.prepare(row) }
        let plan = try decodePlan(row.body)
        let prepared = APIDispatcher.prepare(row) { caller throws(CloudError) in
            var plan = plan
            plan.caller = caller
            return plan
        }
        switch prepared.route {
        case .modifyRecords, .refused: return prepared
        default: throw Damaged(what: "a binary records/modify body on the path \(row.path)")
        }
    }

    /// Whether a row's body is in the binary form (else it is JSON).
    package static func isBinary(_ body: Data) -> Bool {
        body.count >= magic.count + 2 && body.prefix(magic.count).elementsEqual(magic)
    }

    // MARK: records/modify

    package static func encode(_ plan: APIDispatcher.ModifyRecordsPlan) -> Data {
        var writer = BinaryWriter()
        writer.bytes.reserveCapacity(64 + plan.operations.count * 160)
        writer.bytes.append(contentsOf: magic)
        writer.bytes.append(modifyRecordsKind)
        writer.bytes.append(modifyRecordsVersion)
        writer.zoneID(plan.zoneID)
        writer.bytes.append(plan.atomic ? 1 : 0)
        if let token = plan.clientToken {
            writer.bytes.append(1)
            writer.blob(token)
        } else {
            writer.bytes.append(0)
        }
        if let keys = plan.desiredKeys {
            writer.bytes.append(1)
            writer.strings(keys)
        } else {
            writer.bytes.append(0)
        }
        writer.fixed(UInt32(plan.operations.count))
        for operation in plan.operations {
            writer.string(operation.type.rawValue)
            writer.operationRecord(operation.record)
            writer.strings(operation.removedFieldNames)
        }
        return Data(writer.bytes)
    }

    /// The zone and the number of operations of a binary `records/modify`
    /// body, read from its first bytes alone; `nil` for any other body.
    package static func zoneAndOperationCount(_ body: Data) -> (RecordZoneID, Int)? {
        guard isBinary(body) else { return nil }
        return try? body.withUnsafeBytes { (raw: UnsafeRawBufferPointer) throws -> (RecordZoneID, Int)? in
            var reader = BinaryReader(raw)
            reader.offset = magic.count
            guard try reader.byte() == modifyRecordsKind, try reader.byte() == modifyRecordsVersion else { return nil }
            let zoneID = try reader.zoneID()
            _ = try reader.byte()
            if try reader.byte() != 0 { _ = try reader.blob() }
            if try reader.byte() != 0 { _ = try reader.strings() }
            return (zoneID, Int(try reader.fixed() as UInt32))
        }
    }

    /// The plan of a binary row; its caller is a placeholder (the row's user is the caller).
    package static func decodePlan(_ body: Data) throws -> APIDispatcher.ModifyRecordsPlan {
        do {
            return try body.withUnsafeBytes { (raw: UnsafeRawBufferPointer) throws -> APIDispatcher.ModifyRecordsPlan in
                var reader = BinaryReader(raw)
                reader.offset = magic.count
                let kind = try reader.byte()
                let version = try reader.byte()
                guard kind == modifyRecordsKind else { throw Damaged(what: "its binary body is of the unknown kind \(kind)") }
                guard version == modifyRecordsVersion else {
                    throw Damaged(
                        what: "its records/modify body is in version \(version), and this syncscope reads version \(modifyRecordsVersion) only: start the data folder with the syncscope that wrote it")
                }
                let zoneID = try reader.zoneID()
                let atomic = try reader.byte() != 0
                let clientToken = try reader.byte() == 0 ? nil : try reader.blob()
                let desiredKeys = try reader.byte() == 0 ? nil : try reader.strings()
                let count = Int(try reader.fixed() as UInt32)
                guard count <= raw.count else { throw Damaged(what: "it claims \(count) operations") }
                var operations: [RecordOperation] = []
                operations.reserveCapacity(count)
                for _ in 0..<count {
                    let typeName = try reader.string()
                    guard let type = RecordOperationType(rawValue: typeName) else { throw Damaged(what: "an operation has the unknown type '\(typeName)'") }
                    let record = try reader.operationRecord()
                    operations.append(RecordOperation(type: type, record: record, removedFieldNames: try reader.strings()))
                }
                guard reader.offset == raw.count else { throw Damaged(what: "\(raw.count - reader.offset) bytes follow the last operation") }
                return APIDispatcher.ModifyRecordsPlan(
                    caller: Caller(user: ""), zoneID: zoneID, operations: operations, atomic: atomic, clientToken: clientToken, desiredKeys: desiredKeys)
            }
        } catch let error as CheckpointFormat.Damaged {
            throw Damaged(what: error.what.replacingOccurrences(of: "a record", with: "an operation"))
        }
    }
}

// MARK: Records in binary form

extension BinaryWriter {
    package mutating func strings(_ texts: [String]) {
        fixed(UInt32(texts.count))
        for text in texts { string(text) }
    }

    package mutating func zoneID(_ zoneID: RecordZoneID) {
        string(zoneID.zoneName)
        string(zoneID.ownerName)
    }

    package mutating func stamp(_ stamp: RecordStamp?) {
        guard let stamp else { return bytes.append(0) }
        bytes.append(1)
        fixed(stamp.timestamp)
        string(stamp.userRecordName)
        optionalString(stamp.deviceID)
    }

    package mutating func operationRecord(_ record: Record) {
        string(record.recordID.recordName)
        zoneID(record.recordID.zoneID)
        string(record.recordType)
        optionalString(record.recordChangeTag)
        stamp(record.created)
        stamp(record.modified)
        fixed(UInt32(record.fields.count))
        for field in record.fields {
            string(field.name)
            value(field.value)
        }
    }

    package mutating func value(_ value: FieldValue) {
        switch value {
        case .string(let text):
            bytes.append(1)
            string(text)
        case .int64(let number):
            bytes.append(2)
            fixed(number)
        case .double(let number):
            bytes.append(3)
            fixed(number.bitPattern)
        case .bytes(let data):
            bytes.append(4)
            blob(data)
        case .encryptedBytes(let data):
            bytes.append(5)
            blob(data)
        case .timestamp(let milliseconds):
            bytes.append(6)
            fixed(milliseconds)
        case .reference(let reference):
            bytes.append(7)
            string(reference.recordName)
            if let zone = reference.zoneID {
                bytes.append(1)
                zoneID(zone)
            } else {
                bytes.append(0)
            }
            string(reference.action.rawValue)
        case .location(let location):
            bytes.append(8)
            fixed(location.latitude.bitPattern)
            fixed(location.longitude.bitPattern)
        case .asset(let asset):
            bytes.append(9)
            string(asset.fileChecksum)
            fixed(asset.size)
            optionalString(asset.downloadURL)
        case .list(let type, let items):
            bytes.append(10)
            string(type.rawValue)
            fixed(UInt32(items.count))
            for item in items { self.value(item) }
        }
    }
}

extension BinaryReader {
    package mutating func strings() throws -> [String] {
        let count = Int(try fixed() as UInt32)
        guard count <= raw.count - offset else { throw CheckpointFormat.Damaged(what: "a list of names claims \(count) names") }
        var texts: [String] = []
        texts.reserveCapacity(count)
        for _ in 0..<count { texts.append(try string()) }
        return texts
    }

    package mutating func zoneID() throws -> RecordZoneID {
        RecordZoneID(zoneName: try string(), ownerName: try string())
    }

    package mutating func recordStamp() throws -> RecordStamp? {
        guard try byte() != 0 else { return nil }
        let timestamp: Int64 = try fixed()
        return RecordStamp(timestamp: timestamp, userRecordName: try string(), deviceID: try optionalString())
    }

    package mutating func operationRecord() throws -> Record {
        let name = try string()
        let zone = try zoneID()
        let type = try string()
        let tag = try optionalString()
        let created = try recordStamp()
        let modified = try recordStamp()
        let count = Int(try fixed() as UInt32)
        guard count <= raw.count - offset else { throw CheckpointFormat.Damaged(what: "a record claims \(count) fields") }
        var fields = RecordFields()
        for _ in 0..<count {
            let fieldName = try string()
            fields[fieldName] = try value(depth: 0)
        }
        return Record(
            recordID: RecordID(recordName: name, zoneID: zone), recordType: type, fields: fields, recordChangeTag: tag, created: created,
            modified: modified)
    }

    package mutating func value(depth: Int) throws -> FieldValue {
        guard depth < 64 else { throw CheckpointFormat.Damaged(what: "a field value is nested more than 64 levels deep") }
        switch try byte() {
        case 1: return .string(try string())
        case 2: return .int64(try fixed())
        case 3: return .double(Double(bitPattern: try fixed()))
        case 4: return .bytes(try blob())
        case 5: return .encryptedBytes(try blob())
        case 6: return .timestamp(try fixed())
        case 7:
            let recordName = try string()
            let zone = try byte() == 0 ? nil : try zoneID()
            let actionName = try string()
            guard let action = ReferenceAction(rawValue: actionName) else {
                throw CheckpointFormat.Damaged(what: "a reference has the unknown action '\(actionName)'")
            }
            return .reference(RecordReference(recordName: recordName, zoneID: zone, action: action))
        case 8:
            let latitude = Double(bitPattern: try fixed())
            return .location(Location(latitude: latitude, longitude: Double(bitPattern: try fixed())))
        case 9:
            let checksum = try string()
            let size: Int64 = try fixed()
            return .asset(AssetDescriptor(fileChecksum: checksum, size: size, downloadURL: try optionalString()))
        case 10:
            let typeName = try string()
            guard let type = FieldType(rawValue: typeName) else { throw CheckpointFormat.Damaged(what: "a list has the unknown type '\(typeName)'") }
            let count = Int(try fixed() as UInt32)
            guard count <= raw.count - offset else { throw CheckpointFormat.Damaged(what: "a list claims \(count) items") }
            var items: [FieldValue] = []
            items.reserveCapacity(count)
            for _ in 0..<count { items.append(try value(depth: depth + 1)) }
            return .list(type, items)
        case let tag:
            throw CheckpointFormat.Damaged(what: "a field value has the unknown kind \(tag)")
        }
    }
}
