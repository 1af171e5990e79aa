import Foundation
@testable import SyncServerHost
import Testing

/// The feed's byte ring (``FeedByteRing``): appends are found again by
/// position; it grows rather than overwrite what the caller keeps, up to its
/// limit; past the limit the oldest bytes read as gone, never as other bytes.
@Suite struct FeedByteRingTests {
    func append(_ ring: FeedByteRing, _ text: String, keeping: UInt64) -> UInt64? {
        Array(text.utf8).withUnsafeBytes { ring.append($0, keeping: keeping) }
    }

    func read(_ ring: FeedByteRing, _ position: UInt64, _ count: Int) -> String? {
        ring.bytes(at: position, count: count).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func anAppendIsReadBackAtItsPositionAcrossTheWrap() throws {
        let ring = FeedByteRing(limit: 16, initialSize: 16)
        #expect(append(ring, "0123456789", keeping: 0) == 0)
        // The second append wraps round the end of the buffer and overwrites the first's start.
        let second = try #require(append(ring, "abcdefghij", keeping: 0))
        #expect(second == 10)
        #expect(ring.end == 20)
        #expect(read(ring, second, 10) == "abcdefghij")
        #expect(ring.data(at: second + 3, count: 4) == Data("defg".utf8))
        // The first append's bytes are partly overwritten: gone, not read as the second's.
        #expect(read(ring, 0, 10) == nil)
        #expect(ring.data(at: 0, count: 10).isEmpty)
        // Its last six bytes are still held.
        #expect(read(ring, 4, 6) == "456789")
        // Nothing past the end is read.
        #expect(read(ring, 18, 4) == nil)
    }

    @Test func itGrowsRatherThanOverwriteWhatIsKept() throws {
        let ring = FeedByteRing(limit: 1024, initialSize: 8)
        var positions: [UInt64] = []
        for word in ["alpha", "bravo", "charlie", "delta", "echo"] {
            positions.append(try #require(append(ring, word, keeping: 0)))
        }
        #expect(ring.size == 32)
        #expect(read(ring, positions[0], 5) == "alpha")
        #expect(read(ring, positions[2], 7) == "charlie")
        #expect(read(ring, positions[4], 4) == "echo")
        // Keeping only from "delta" on, it wraps instead of growing: "alpha" goes first.
        let size = ring.size
        let foxtrot = try #require(append(ring, "foxtrot", keeping: positions[3]))
        #expect(ring.size == size)
        #expect(read(ring, foxtrot, 7) == "foxtrot")
        #expect(read(ring, positions[3], 5) == "delta")
        #expect(read(ring, positions[0], 5) == nil)
    }

    @Test func atItsLimitTheOldestKeptBytesGoAndMoreThanTheLimitIsRefused() throws {
        let ring = FeedByteRing(limit: 12, initialSize: 4)
        let first = try #require(append(ring, "aaaaaa", keeping: 0))
        let second = try #require(append(ring, "bbbbbb", keeping: 0))
        #expect(ring.size == 12)
        // Kept from the start, but the ring is at its limit: the first goes.
        let third = try #require(append(ring, "cccccc", keeping: 0))
        #expect(ring.size == 12)
        #expect(read(ring, first, 6) == nil)
        #expect(read(ring, second, 6) == "bbbbbb")
        #expect(read(ring, third, 6) == "cccccc")
        #expect(append(ring, String(repeating: "d", count: 13), keeping: 0) == nil)
        #expect(ring.end == 18)
        #expect(read(ring, third, 6) == "cccccc")
    }
}
