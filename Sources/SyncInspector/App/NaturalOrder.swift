/// Orders names the way a person reads them: runs of digits compare as
/// numbers, so `note-2` < `note-10` < `note-107`, not `note-10` < `note-107`
/// < `note-2` as plain text would.
///
/// A strict total order: names that read as the same number ("note-01",
/// "note-1") fall back to their plain text order, so two different names
/// never compare equal. Works on UTF-8 bytes: a list already in order
/// (zero-padded names, as servers often sort them) costs one pass of
/// comparisons; any other list, one sort over its names' bytes.
public enum NaturalOrder {
    /// Whether `a` comes before `b`.
    public static func less(_ a: String, _ b: String) -> Bool {
        compare(a, b) < 0
    }

    /// -1, 0 or 1 (0 only for byte-equal strings).
    public static func compare(_ a: String, _ b: String) -> Int {
        let fast = a.utf8.withContiguousStorageIfAvailable { x in b.utf8.withContiguousStorageIfAvailable { y in compare(x, y) } }
        let result: Int
        if let fast, let fast {
            result = fast
        } else {
            let x = Array(a.utf8)
            let y = Array(b.utf8)
            result = x.withUnsafeBufferPointer { x in y.withUnsafeBufferPointer { y in compare(x, y) } }
        }
        if result != 0 { return result }
        // Same reading (note-01, note-1): byte order, as `sorted` breaks ties.
        if a.utf8.elementsEqual(b.utf8) { return 0 }
        return a.utf8.lexicographicallyPrecedes(b.utf8) ? -1 : 1
    }

    /// `items` in natural order of `name`. Reads each
    /// name's bytes once into one buffer, then sorts positions in it.
    public static func sorted<Item>(_ items: [Item], by name: (Item) -> String) -> [Item] {
        // Names that are already in order (zero-padded or numberless, as
        // servers often sort them) cost one pass.
        if isSorted(items, by: name) { return items }
        // Every name's bytes in one buffer, read once; the sort then compares bytes in place.
        var bytes: [UInt8] = []
        var starts: [Int] = []
        starts.reserveCapacity(items.count + 1)
        for item in items {
            starts.append(bytes.count)
            bytes.append(contentsOf: name(item).utf8)
        }
        starts.append(bytes.count)
        var order = Array(0..<items.count)
        bytes.withUnsafeBufferPointer { all in
            starts.withUnsafeBufferPointer { starts in
                order.withUnsafeMutableBufferPointer { order in
                    order.sort { i, j in
                        let x = UnsafeBufferPointer(rebasing: all[starts[i]..<starts[i + 1]])
                        let y = UnsafeBufferPointer(rebasing: all[starts[j]..<starts[j + 1]])
                        let result = compare(x, y)
                        if result != 0 { return result < 0 }
                        // Same reading (note-01, note-1): byte order, as for plain text.
                        return x.lexicographicallyPrecedes(y)
                    }
                }
            }
        }
        return order.map { items[$0] }
    }

    /// Whether every name comes before the next one (one comparison per pair).
    public static func isSorted<Item>(_ items: [Item], by name: (Item) -> String) -> Bool {
        guard items.count > 1 else { return true }
        var previous = name(items[0])
        for index in 1..<items.count {
            let next = name(items[index])
            if compare(previous, next) > 0 { return false }
            previous = next
        }
        return true
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// Compares byte by byte, digit runs by value (leading zeros ignored).
    private static func compare(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Int {
        var i = 0
        var j = 0
        while i < x.count && j < y.count {
            let a = x[i]
            let b = y[j]
            if isDigit(a) && isDigit(b) {
                // Skip leading zeros, then the longer run is the bigger number;
                // equal lengths compare digit by digit.
                while i < x.count && x[i] == 0x30 { i += 1 }
                while j < y.count && y[j] == 0x30 { j += 1 }
                var endI = i
                var endJ = j
                while endI < x.count && isDigit(x[endI]) { endI += 1 }
                while endJ < y.count && isDigit(y[endJ]) { endJ += 1 }
                let lengthA = endI - i
                let lengthB = endJ - j
                if lengthA != lengthB { return lengthA < lengthB ? -1 : 1 }
                while i < endI {
                    if x[i] != y[j] { return x[i] < y[j] ? -1 : 1 }
                    i += 1
                    j += 1
                }
                continue
            }
            if a != b { return a < b ? -1 : 1 }
            i += 1
            j += 1
        }
        let restA = x.count - i
        let restB = y.count - j
        return restA == restB ? 0 : (restA < restB ? -1 : 1)
    }
}
