import Foundation

/// Word wrapping by display width.
public enum TextWrap {
    /// Prose as written in a file (a lesson's `say: |` block): the line
    /// breaks of the file become spaces, and a blank line stays a paragraph
    /// break. "has every\nrecord" reads "has every record", on one line or
    /// wrapped to the pane.
    public static func unfold(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .split(separator: "", omittingEmptySubsequences: true)
            .map { $0.joined(separator: " ") }
            .joined(separator: "\n\n")
    }

    /// Splits `text` into lines of at most `width` columns. Newlines start a
    /// new line; words are kept whole when they fit on a line, and longer
    /// words are broken between characters (never inside a wide character).
    /// Runs of spaces between words collapse to one.
    public static func wrap(_ text: String, width: Int) -> [String] {
        guard width > 0 else { return [] }
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var current = ""
            var currentWidth = 0
            let words = paragraph
                .split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
                .map { String($0.filter { TextWidth.of($0) > 0 }) }
                .filter { !$0.isEmpty }
            for word in words {
                let wordWidth = TextWidth.of(word)
                if currentWidth > 0 && currentWidth + 1 + wordWidth <= width {
                    current += " " + word
                    currentWidth += 1 + wordWidth
                    continue
                }
                if currentWidth > 0 {
                    lines.append(current)
                    current = ""
                    currentWidth = 0
                }
                if wordWidth <= width {
                    current = word
                    currentWidth = wordWidth
                    continue
                }
                // Break a long word.
                for character in word {
                    let w = TextWidth.of(character)
                    if currentWidth > 0 && currentWidth + w > width {
                        lines.append(current)
                        current = ""
                        currentWidth = 0
                    }
                    current.append(character)
                    currentWidth += w
                }
            }
            lines.append(current)
        }
        return lines
    }
}
