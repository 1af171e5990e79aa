import Foundation
import Testing
@testable import SyncInspector

/// A whole screen, text and style, kept in a file under `Goldens/` and
/// compared cell for cell (ratatui's whole-frame buffer assertions).
///
/// The file holds the text (one line per row), then a style grid with one
/// letter per cell, then what each letter means:
///
/// ```
/// # main screen · 80×24 · colored
/// text
///  SyncScope │ 1 iPhone (alice) │ …
/// styles
/// aaaaaaaaaaabbbbbbbb…
/// legend
/// a fg=black bg=white
/// b fg=black bg=cyan bold
/// ```
///
/// A space in the style grid is the plain style. After a deliberate change of
/// the screen, regenerate every golden with
/// `SYNCSCOPE_UPDATE_GOLDENS=1 swift test --filter InspectorGoldenTests`
/// and read the difference before committing it.
struct ScreenGolden: Equatable {
    struct Cell: Equatable {
        var text: String
        var style: String
    }

    var title: String
    var width: Int
    var height: Int
    /// Row by row, `width` cells each (a wide character's second cell has empty text).
    var cells: [[Cell]]

    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Goldens")
    static var updating: Bool { ProcessInfo.processInfo.environment["SYNCSCOPE_UPDATE_GOLDENS"] == "1" }

    init(title: String, buffer: CellBuffer) {
        self.title = title
        width = buffer.width
        height = buffer.height
        cells = (0..<buffer.height).map { y in
            (0..<buffer.width).map { x in
                let cell = buffer[x: x, y: y]
                return Cell(text: cell.text, style: Self.describe(cell.style))
            }
        }
    }

    static func describe(_ style: Style) -> String {
        var words: [String] = []
        if style.foreground != .default { words.append("fg=\(style.foreground)") }
        if style.background != .default { words.append("bg=\(style.background)") }
        let names: [(Attributes, String)] = [(.bold, "bold"), (.dim, "dim"), (.underline, "underline"), (.reverse, "reverse")]
        for (attribute, name) in names where style.attributes.contains(attribute) { words.append(name) }
        return words.isEmpty ? "plain" : words.joined(separator: " ")
    }

    /// The file's text. Letters are given to styles in order of first use, so
    /// the same screen always writes the same file.
    var fileText: String {
        var letters: [String: Character] = ["plain": " "]
        var legend: [(Character, String)] = []
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        var grid: [String] = []
        for row in cells {
            var line = ""
            for cell in row {
                if letters[cell.style] == nil {
                    let letter = legend.count < alphabet.count ? alphabet[legend.count] : "?"
                    letters[cell.style] = letter
                    legend.append((letter, cell.style))
                }
                line.append(letters[cell.style] ?? "?")
            }
            grid.append(line)
        }
        var text = "# \(title) · \(width)×\(height)\ntext\n"
        text += cells.map { $0.map(\.text).joined() }.joined(separator: "\n") + "\n"
        text += "styles\n" + grid.joined(separator: "\n") + "\n"
        text += "legend\n" + legend.map { "\($0.0) \($0.1)" }.joined(separator: "\n") + "\n"
        return text
    }

    /// Reads a golden file back into cells (text by display column, style by name).
    static func parse(_ file: String) throws -> ScreenGolden {
        let lines = file.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let header = lines.first, header.hasPrefix("# "),
              let textAt = lines.firstIndex(of: "text"), let stylesAt = lines.firstIndex(of: "styles"),
              let legendAt = lines.firstIndex(of: "legend"), textAt < stylesAt, stylesAt < legendAt
        else { throw GoldenError("not a screen golden (expected '# title', then text, styles and legend sections)") }
        let textRows = Array(lines[(textAt + 1)..<stylesAt])
        let styleRows = Array(lines[(stylesAt + 1)..<legendAt])
        var meaning: [Character: String] = [" ": "plain"]
        for line in lines[(legendAt + 1)...] where !line.isEmpty {
            guard let letter = line.first, line.count > 2 else { throw GoldenError("bad legend line '\(line)'") }
            meaning[letter] = String(line.dropFirst(2))
        }
        guard textRows.count == styleRows.count else { throw GoldenError("\(textRows.count) text rows but \(styleRows.count) style rows") }
        var cells: [[Cell]] = []
        for (textRow, styleRow) in zip(textRows, styleRows) {
            // Text by display column: a wide character takes its cell and an empty one.
            var row: [Cell] = []
            for character in textRow {
                row.append(Cell(text: String(character), style: ""))
                if TextWidth.of(character) == 2 { row.append(Cell(text: "", style: "")) }
            }
            let styles = Array(styleRow)
            guard styles.count == row.count else { throw GoldenError("a style row has \(styles.count) cells, its text \(row.count)") }
            for index in row.indices {
                guard let style = meaning[styles[index]] else { throw GoldenError("style letter '\(styles[index])' is not in the legend") }
                row[index].style = style
            }
            cells.append(row)
        }
        let title = String(header.dropFirst(2).split(separator: " · ").dropLast().joined(separator: " · "))
        return ScreenGolden(title: title, width: cells.first?.count ?? 0, height: cells.count, cells: cells)
    }

    private init(title: String, width: Int, height: Int, cells: [[Cell]]) {
        self.title = title
        self.width = width
        self.height = height
        self.cells = cells
    }

    /// The cells that differ, as readable lines (at most `limit`).
    func differences(from golden: ScreenGolden, limit: Int = 8) -> [String] {
        guard width == golden.width, height == golden.height else {
            return ["the golden is \(golden.width)×\(golden.height), the screen \(width)×\(height)"]
        }
        var found: [String] = []
        for y in 0..<height {
            for x in 0..<width where cells[y][x] != golden.cells[y][x] {
                let (now, want) = (cells[y][x], golden.cells[y][x])
                found.append("(\(x),\(y)): golden '\(want.text)' \(want.style), now '\(now.text)' \(now.style)")
                if found.count == limit { return found }
            }
        }
        return found
    }

    /// Compares a screen with its golden file (or writes the file when updating).
    static func check(_ buffer: CellBuffer, title: String, file name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let screen = ScreenGolden(title: title, buffer: buffer)
        let url = directory.appendingPathComponent(name)
        if updating {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try screen.fileText.write(to: url, atomically: true, encoding: .utf8)
            return
        }
        guard let file = try? String(contentsOf: url, encoding: .utf8) else {
            Issue.record("No golden \(name): run SYNCSCOPE_UPDATE_GOLDENS=1 swift test --filter InspectorGoldenTests", sourceLocation: sourceLocation)
            return
        }
        let golden = try parse(file)
        let differences = screen.differences(from: golden)
        if !differences.isEmpty {
            Issue.record(
                """
                \(name): the screen differs from its golden, cell for cell:
                  \(differences.joined(separator: "\n  "))
                Now:
                \(buffer.lines().joined(separator: "\n"))
                """, sourceLocation: sourceLocation)
        }
    }
}

struct GoldenError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
