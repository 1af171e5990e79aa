import Foundation

/// Bytes the event feed keeps, appended in order into one buffer that wraps
/// around. Each append is found again by its position: how many bytes were
/// appended before it. The buffer starts small and doubles, up to ``limit``,
/// whenever an append would overwrite bytes the caller still keeps; at the
/// limit the oldest bytes are overwritten and read as gone.
///
/// Why bytes and not values: an event that keeps its own strings, arrays and
/// bodies keeps a dozen allocations alive until the ring comes round to it,
/// and every request then allocates where those were freed long ago, in
/// memory no cache holds. Copying its fields here frees them at once.
///
/// Not thread-safe: the feed uses it under its lock.
final class FeedByteRing {
    /// The most bytes the ring holds.
    let limit: Int
    private var storage: UnsafeMutableRawBufferPointer
    /// Bytes ever appended: the position of the next append.
    private(set) var end: UInt64 = 0
    /// The oldest position the ring still holds.
    private var start: UInt64 = 0

    init(limit: Int, initialSize: Int = 64 * 1024) {
        self.limit = max(1, limit)
        storage = .allocate(byteCount: min(self.limit, max(1, initialSize)), alignment: 8)
    }

    deinit { storage.deallocate() }

    /// Bytes of memory the ring has taken.
    var size: Int { storage.count }

    /// Appends `bytes` and answers their position; `nil` when they are more
    /// than ``limit`` (nothing is written then). The ring grows rather than
    /// overwrite bytes at or after `keeping`, until it reaches ``limit``.
    func append(_ bytes: UnsafeRawBufferPointer, keeping: UInt64) -> UInt64? {
        guard bytes.count <= limit else { return nil }
        let needed = end + UInt64(bytes.count) - min(max(keeping, start), end)
        if needed > UInt64(storage.count), storage.count < limit {
            var grown = storage.count
            while UInt64(grown) < needed, grown < limit { grown = min(limit, grown * 2) }
            resize(to: grown, keepingFrom: min(max(keeping, start), end))
        }
        let position = end
        copyIn(bytes, at: position)
        end += UInt64(bytes.count)
        start = max(start, end > UInt64(storage.count) ? end - UInt64(storage.count) : 0)
        return position
    }

    /// Appends `first` and `second` right after it, or neither when together
    /// they are more than ``limit``; answers where `first` starts. See ``append(_:keeping:)``.
    func append(_ first: Data, _ second: Data, keeping: UInt64) -> UInt64? {
        guard first.count + second.count <= limit else { return nil }
        let position = first.withUnsafeBytes { append($0, keeping: keeping) }
        _ = second.withUnsafeBytes { append($0, keeping: keeping) }
        return position
    }

    /// Whether the `count` bytes at `position` are still held.
    func holds(_ position: UInt64, count: Int) -> Bool {
        position >= start && position + UInt64(count) <= end
    }

    /// The `count` bytes at `position`; `nil` once they were overwritten.
    func bytes(at position: UInt64, count: Int) -> [UInt8]? {
        guard holds(position, count: count) else { return nil }
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            copyOut(at: position, into: UnsafeMutableRawBufferPointer(buffer))
            initialized = count
        }
    }

    /// The `count` bytes at `position` as `Data`; empty once they were overwritten.
    func data(at position: UInt64, count: Int) -> Data {
        guard count > 0, holds(position, count: count) else { return Data() }
        var data = Data(count: count)
        data.withUnsafeMutableBytes { copyOut(at: position, into: $0) }
        return data
    }

    private func copyIn(_ bytes: UnsafeRawBufferPointer, at position: UInt64) {
        guard !bytes.isEmpty, let base = storage.baseAddress, let source = bytes.baseAddress else { return }
        let offset = Int(position % UInt64(storage.count))
        let first = min(bytes.count, storage.count - offset)
        (base + offset).copyMemory(from: source, byteCount: first)
        if first < bytes.count { base.copyMemory(from: source + first, byteCount: bytes.count - first) }
    }

    private func copyOut(at position: UInt64, into target: UnsafeMutableRawBufferPointer) {
        guard !target.isEmpty, let base = storage.baseAddress, let destination = target.baseAddress else { return }
        let offset = Int(position % UInt64(storage.count))
        let first = min(target.count, storage.count - offset)
        destination.copyMemory(from: base + offset, byteCount: first)
        if first < target.count { (destination + first).copyMemory(from: base, byteCount: target.count - first) }
    }

    /// Moves the bytes from `from` on into a buffer of `size` bytes (the same positions); older ones are let go.
    private func resize(to size: Int, keepingFrom from: UInt64) {
        let kept = Int(end - from)
        let old = storage
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, kept), alignment: 8)
        defer { scratch.deallocate() }
        copyOut(at: from, into: UnsafeMutableRawBufferPointer(rebasing: scratch[0..<kept]))
        storage = .allocate(byteCount: size, alignment: 8)
        old.deallocate()
        copyIn(UnsafeRawBufferPointer(rebasing: scratch[0..<kept]), at: from)
        start = from
    }
}
