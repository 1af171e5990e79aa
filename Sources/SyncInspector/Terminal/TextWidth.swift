/// Display widths of text in a terminal, like POSIX `wcwidth`, computed in
/// Swift so layouts (and tests) do not depend on the C library's tables.
///
/// East Asian Wide and Fullwidth characters and emoji with emoji
/// presentation take two columns; combining marks and format characters take
/// none; everything else printable takes one. Ambiguous-width characters
/// (box drawing, `×`, `…`) count as one, as in a UTF-8 western locale.
public enum TextWidth {
    /// Columns one Unicode scalar takes: 2, 1, 0 (combining, zero-width) or
    /// -1 (a control character, which is not printable).
    public static func of(_ scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value == 0 { return 0 }
        if value < 0x20 || (value >= 0x7F && value < 0xA0) { return -1 }
        if value < 0x300 { return 1 }  // Latin fast path (no combining marks below U+0300).
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark:
            return 0
        case .format:
            return value == 0xAD ? 1 : 0
        case .control:
            return -1
        default:
            break
        }
        if (0x1160...0x11FF).contains(value) { return 0 }  // Hangul medial vowels and final consonants.
        if scalar.properties.isEmojiPresentation { return 2 }
        return isWide(value) ? 2 : 1
    }

    /// Columns one grapheme cluster takes: 0, 1 or 2. Zero means it cannot be
    /// shown on its own (a control character, a lone combining mark or a
    /// zero-width character).
    public static func of(_ character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        let base = of(first)
        guard base > 0 else { return 0 }
        if scalars.count > 1 {
            // Variation selectors pick emoji (FE0F) or text (FE0E) presentation.
            if scalars.contains(where: { $0.value == 0xFE0F }) && first.properties.isEmoji { return 2 }
            if scalars.contains(where: { $0.value == 0xFE0E }) { return 1 }
        }
        return base
    }

    /// Whether every character of `text` is printable ASCII (`0x20...0x7E`):
    /// then each byte is one character, one column wide.
    static func isPrintableASCII(_ text: some StringProtocol) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }

    /// Columns a whole string takes (characters that cannot be shown count zero).
    public static func of(_ string: some StringProtocol) -> Int {
        // Printable ASCII, most of what the panes show: a column a byte, no grapheme breaking.
        if isPrintableASCII(string) { return string.utf8.count }
        var total = 0
        for character in string {
            total += of(character)
        }
        return total
    }

    /// East Asian Wide (W) and Fullwidth (F) ranges that are not emoji,
    /// sorted, closed ranges.
    private static let wideRanges: [(UInt32, UInt32)] = [
        (0x1100, 0x115F), (0x2329, 0x232A), (0x2E80, 0x303E), (0x3041, 0x33FF),
        (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xA000, 0xA4CF), (0xA960, 0xA97F),
        (0xAC00, 0xD7A3), (0xF900, 0xFAFF), (0xFE10, 0xFE19), (0xFE30, 0xFE6F),
        (0xFF00, 0xFF60), (0xFFE0, 0xFFE6), (0x16FE0, 0x16FE4), (0x16FF0, 0x16FF1),
        (0x17000, 0x18CFF), (0x18D00, 0x18D08), (0x1AFF0, 0x1AFFE), (0x1B000, 0x1B2FF),
        (0x1F200, 0x1F202), (0x1F210, 0x1F23B), (0x1F240, 0x1F248), (0x1F250, 0x1F251),
        (0x1F260, 0x1F265), (0x20000, 0x2FFFD), (0x30000, 0x3FFFD),
    ]

    private static func isWide(_ value: UInt32) -> Bool {
        var low = 0
        var high = wideRanges.count - 1
        while low <= high {
            let mid = (low + high) / 2
            let (start, end) = wideRanges[mid]
            if value < start {
                high = mid - 1
            } else if value > end {
                low = mid + 1
            } else {
                return true
            }
        }
        return false
    }
}

extension TextWidth {
    /// `text` cut to at most `width` columns; when it had to be cut and
    /// `ellipsis` is set, the last column shows `…`. Never splits a wide
    /// character; characters that cannot be shown are dropped.
    public static func truncate(_ text: String, to width: Int, ellipsis: Bool = true) -> String {
        guard width > 0 else { return "" }
        if isPrintableASCII(text) {
            // One column per byte, nothing to drop.
            let count = text.utf8.count
            if count <= width { return text }
            let kept = String(decoding: text.utf8.prefix(max(0, ellipsis ? width - 1 : width)), as: UTF8.self)
            return ellipsis ? kept + "…" : kept
        }
        if of(text) <= width {
            return String(text.filter { of($0) > 0 })
        }
        let budget = ellipsis ? width - 1 : width
        var result = ""
        var used = 0
        for character in text {
            let w = of(character)
            if w == 0 { continue }
            if used + w > budget { break }
            result.append(character)
            used += w
        }
        if ellipsis { result.append("…") }
        return result
    }

    /// `text` padded with spaces (or truncated) to exactly `width` columns.
    public static func pad(_ text: String, to width: Int, alignment: Alignment = .left) -> String {
        let cut = truncate(text, to: width)
        let gap = max(0, width - of(cut))
        switch alignment {
        case .left:
            return cut + String(repeating: " ", count: gap)
        case .right:
            return String(repeating: " ", count: gap) + cut
        case .center:
            return String(repeating: " ", count: gap / 2) + cut + String(repeating: " ", count: gap - gap / 2)
        }
    }
}

/// Horizontal alignment of text in a column.
public enum Alignment: Hashable, Sendable {
    case left
    case right
    case center
}
