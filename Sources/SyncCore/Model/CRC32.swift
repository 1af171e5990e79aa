import Foundation

/// CRC-32 (IEEE 802.3, the checksum of zip and PNG): the checksums of
/// stored journal rows and checkpoints, in SQLite and in PostgreSQL alike.
public struct CRC32: Sendable {
    public private(set) var value: UInt32 = 0

    public init() {}

    private static let table: [UInt32] = (0..<256).map { index in
        var c = UInt32(index)
        for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    public mutating func addBytes(_ bytes: some Sequence<UInt8>) {
        var c = ~value
        for byte in bytes { c = Self.table[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        value = ~c
    }

    /// The same, over contiguous bytes (no iterator per byte).
    public mutating func addBytes(_ bytes: UnsafeRawBufferPointer) {
        var c = ~value
        Self.table.withUnsafeBufferPointer { table in
            for byte in bytes { c = table[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        }
        value = ~c
    }

    /// A field with its length in front, so that moving bytes between fields changes the sum.
    public mutating func add(_ text: String) {
        add(Data(text.utf8))
    }

    public mutating func add(_ data: Data) {
        let count = UInt64(data.count)
        addBytes((0..<8).map { UInt8(truncatingIfNeeded: count >> ($0 * 8)) })
        data.withUnsafeBytes { addBytes($0) }
    }
}
