import Foundation

/// CRC-32 (IEEE 802.3, the checksum of zip and PNG): the checksums of
/// stored journal rows and checkpoints, in SQLite and in PostgreSQL alike.
///
/// Contiguous bytes are summed eight at a time (slicing-by-8, the same sums
/// as one byte at a time); fields are summed without copying them.
public struct CRC32: Sendable {
    public private(set) var value: UInt32 = 0

    public init() {}

    /// `tables[k][b]`: the CRC of byte `b` followed by `k` zero bytes, for
    /// k = 0…7, in one flat array of 8 × 256 entries (`tables[0]` is the classic table).
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for index in 0..<256 {
            var c = UInt32(index)
            for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
            tables[index] = c
        }
        for k in 1..<8 {
            for index in 0..<256 {
                let previous = tables[(k - 1) * 256 + index]
                tables[k * 256 + index] = tables[Int(previous & 0xFF)] ^ (previous >> 8)
            }
        }
        return tables
    }()

    public mutating func addBytes(_ bytes: some Sequence<UInt8>) {
        if bytes.withContiguousStorageIfAvailable({ addBytes(UnsafeRawBufferPointer($0)) }) != nil { return }
        var c = ~value
        Self.tables.withUnsafeBufferPointer { table in
            for byte in bytes { c = table[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        }
        value = ~c
    }

    /// The same, over contiguous bytes.
    public mutating func addBytes(_ bytes: UnsafeRawBufferPointer) {
        var c = ~value
        Self.tables.withUnsafeBufferPointer { table in
            var index = 0
            let count = bytes.count
            while count - index >= 8 {
                let low = c ^ (UInt32(bytes[index]) | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2]) << 16 | UInt32(bytes[index + 3]) << 24)
                let high = UInt32(bytes[index + 4]) | UInt32(bytes[index + 5]) << 8 | UInt32(bytes[index + 6]) << 16 | UInt32(bytes[index + 7]) << 24
                c = table[7 * 256 + Int(low & 0xFF)] ^ table[6 * 256 + Int((low >> 8) & 0xFF)]
                    ^ table[5 * 256 + Int((low >> 16) & 0xFF)] ^ table[4 * 256 + Int(low >> 24)]
                    ^ table[3 * 256 + Int(high & 0xFF)] ^ table[2 * 256 + Int((high >> 8) & 0xFF)]
                    ^ table[1 * 256 + Int((high >> 16) & 0xFF)] ^ table[Int(high >> 24)]
                index += 8
            }
            while index < count {
                c = table[Int((c ^ UInt32(bytes[index])) & 0xFF)] ^ (c >> 8)
                index += 1
            }
        }
        value = ~c
    }

    /// A field with its length in front, so that moving bytes between fields changes the sum.
    public mutating func add(_ text: String) {
        var text = text
        text.withUTF8 { add(UnsafeRawBufferPointer($0)) }
    }

    public mutating func add(_ data: Data) {
        data.withUnsafeBytes { add($0) }
    }

    /// A field's bytes with their count in front (eight bytes, little-endian).
    private mutating func add(_ bytes: UnsafeRawBufferPointer) {
        withUnsafeBytes(of: UInt64(bytes.count).littleEndian) { addBytes($0) }
        addBytes(bytes)
    }
}
