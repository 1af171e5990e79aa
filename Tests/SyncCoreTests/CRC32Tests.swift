import Foundation
import Testing
import SyncCore

/// The checksums of journal rows and checkpoints: stored sums must keep
/// matching, so the sums are pinned to CRC-32's published check value and to
/// a byte-at-a-time reference over every length and alignment.
@Suite struct CRC32Tests {
    /// The byte-at-a-time CRC-32 (IEEE 802.3), straight from its definition.
    static func reference(_ bytes: [UInt8], startingAt value: UInt32 = 0) -> UInt32 {
        var c = ~value
        for byte in bytes {
            c ^= UInt32(byte)
            for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        }
        return ~c
    }

    @Test func theCheckValueOfTheStandard() {
        var crc = CRC32()
        crc.addBytes(Array("123456789".utf8))
        #expect(crc.value == 0xCBF4_3926)
    }

    @Test func everyLengthAndOffsetSumsAsTheByteAtATimeReference() {
        var random = SeededRandom(seed: 42)
        let bytes = (0..<300).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        for start in 0..<9 {
            for length in [0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 200, 300 - start] where start + length <= bytes.count {
                let slice = Array(bytes[start..<(start + length)])
                var contiguous = CRC32()
                slice.withUnsafeBytes { contiguous.addBytes($0) }
                var sequence = CRC32()
                sequence.addBytes(slice.lazy.map { $0 })  // not contiguous: the byte-at-a-time path
                #expect(contiguous.value == Self.reference(slice), "start \(start), length \(length)")
                #expect(sequence.value == contiguous.value, "start \(start), length \(length)")
            }
        }
    }

    @Test func aFieldIsItsLengthInEightLittleEndianBytesThenItsBytes() {
        let text = "records/modify — é"
        var field = CRC32()
        field.add(text)
        var data = CRC32()
        data.add(Data(text.utf8))
        let count = UInt64(text.utf8.count)
        let expected = Self.reference((0..<8).map { UInt8(truncatingIfNeeded: count >> ($0 * 8)) } + Array(text.utf8))
        #expect(field.value == expected)
        #expect(data.value == expected)
        // Moving a byte from one field to the next changes the sum.
        var ab = CRC32(), a_b = CRC32()
        ab.add("ab"); ab.add("c")
        a_b.add("a"); a_b.add("bc")
        #expect(ab.value != a_b.value)
    }
}
