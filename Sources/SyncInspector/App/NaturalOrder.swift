/// Orders names the way a person reads them: runs of digits compare as
/// numbers, so `note-2` < `note-10` < `note-107`, not `note-10` < `note-107`
/// < `note-2` as plain text would.
///
/// A strict total order: names that read as the same number ("note-01",
/// "note-1") fall back to their plain text order, so two different names
/// never compare equal. Works on UTF-8 bytes (no allocation), so sorting
/// 100,000 record names costs about what plain sorting does.
public enum NaturalOrder {
    /// Whether `a` comes before `b`.
    public static func less(_ a: String, _ b: String) -> Bool {
        compare(a, b) < 0
    }

    /// -1, 0 or 1 (0 only for equal strings).
    public static func compare(_ a: String, _ b: String) -> Int {
        var a = a
        var b = b
        let result = a.withUTF8 { x in b.withUTF8 { y in compare(x, y) } }
        if result != 0 { return result }
        return a == b ? 0 : (a < b ? -1 : 1)
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
