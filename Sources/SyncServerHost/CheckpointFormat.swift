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
package enum CheckpointFormat {
    package static let magic: [UInt8] = Array("SSCKPT\r\n".utf8)
    package static let version: UInt32 = 2

    package struct UnknownVersion: Error, CustomStringConvertible {
        package var version: UInt32
        package var description: String {
            "the checkpoint is in format version \(version), and this syncscope reads versions 1 and 2 only: start the data folder with the syncscope that wrote it"
        }
    }

    package struct Damaged: Error, CustomStringConvertible {
        package var what: String
        package var description: String { "the checkpoint cannot be read: \(what)" }
    }

    package static func encode(_ file: ServerStateFile) throws -> Data {
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

    package static func decode(_ data: Data) throws -> ServerStateFile {
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
