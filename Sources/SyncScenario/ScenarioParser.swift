import Foundation
import Yams

/// Reads scenario files (see <doc:ScenarioFormat>).
///
/// Every problem is found before anything runs: the parser reads the whole
/// file and throws one ``ScenarioFileError`` listing each error (and any
/// warnings) with its file, line and column.
public enum ScenarioParser {
    /// Parses a scenario from YAML text. `fileName` only labels diagnostics
    /// (and, without a `name:` key, names the scenario).
    public static func parse(yaml: String, fileName: String) throws(ScenarioFileError) -> Scenario {
        let root: Node?
        do {
            // The basic resolver leaves plain scalars untyped: the parser
            // decides what `no`, `1.0` or `2026-01-01` mean where they appear.
            root = try Yams.compose(yaml: yaml, Resolver.basic)
        } catch let error as YamlError {
            throw ScenarioFileError(diagnostics: [diagnostic(for: error, yaml: yaml, fileName: fileName)], source: yaml)
        } catch {
            throw ScenarioFileError(
                diagnostics: [ScenarioDiagnostic(
                    .error, at: SourceLocation(file: fileName, line: 0, column: 0), "cannot read YAML: \(error)")],
                source: yaml)
        }
        let reader = ScenarioReader(fileName: fileName)
        let scenario = reader.scenario(from: root, defaultName: defaultName(for: fileName))
        let diagnostics = reader.diagnostics.enumerated()
            .sorted { ($0.element.location, $0.offset) < ($1.element.location, $1.offset) }
            .map(\.element)
        guard let scenario, !diagnostics.contains(where: { $0.severity == .error }) else {
            throw ScenarioFileError(diagnostics: diagnostics, source: yaml)
        }
        var result = scenario
        result.warnings = diagnostics
        return result
    }

    /// Parses the scenario file at `url`; diagnostics name it by the path as given.
    public static func parse(fileAt url: URL) throws(ScenarioFileError) -> Scenario {
        let fileName = url.isFileURL ? url.relativePath : url.absoluteString
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw ScenarioFileError(diagnostics: [ScenarioDiagnostic(
                .error, at: SourceLocation(file: fileName, line: 0, column: 0), "this is a folder, not a scenario file",
                hint: "give the path of a .yaml file")])
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            let reason = FileManager.default.fileExists(atPath: url.path) ? "cannot read the file" : "no such file"
            throw ScenarioFileError(diagnostics: [ScenarioDiagnostic(
                .error, at: SourceLocation(file: fileName, line: 0, column: 0), reason)])
        }
        guard let yaml = String(data: data, encoding: .utf8) else {
            throw ScenarioFileError(diagnostics: [ScenarioDiagnostic(
                .error, at: SourceLocation(file: fileName, line: 0, column: 0), "the file is not UTF-8 text",
                hint: "save it as UTF-8")])
        }
        return try parse(yaml: yaml, fileName: fileName)
    }

    /// `lessons/first-fetch.yaml` → `first-fetch`.
    static func defaultName(for fileName: String) -> String {
        let base = fileName.split(separator: "/").last.map(String.init) ?? fileName
        guard let dot = base.lastIndex(of: "."), dot != base.startIndex else { return base }
        return String(base[..<dot])
    }

    // MARK: YAML syntax errors

    static func diagnostic(for error: YamlError, yaml: String, fileName: String) -> ScenarioDiagnostic {
        // libyaml puts the end of a file without a final newline on the line
        // after it; point at the end of the last line instead.
        let lines = yaml.split(separator: "\n", omittingEmptySubsequences: false)
        func clamped(_ mark: Mark) -> (line: Int, column: Int) {
            guard mark.line > lines.count, let last = lines.last else { return (mark.line, mark.column) }
            return (lines.count, last.unicodeScalars.count + 1)
        }
        func at(_ mark: Mark) -> SourceLocation {
            let (line, column) = clamped(mark)
            return SourceLocation(file: fileName, line: line, column: column)
        }
        switch error {
        case .scanner(let context, let problem, let mark, _),
             .parser(let context, let problem, let mark, _),
             .composer(let context, let problem, let mark, _):
            // An unclosed quote runs to the end of the file; the mistake is
            // where the quote opens, so point there and show that line.
            if let context, context.text.contains("quoted scalar"), problem.contains("unexpected end") {
                var quote = "quote"
                if context.mark.line >= 1, context.mark.line <= lines.count {
                    let line = Array(lines[context.mark.line - 1].unicodeScalars)
                    if context.mark.column >= 1, context.mark.column <= line.count {
                        quote = "quote \(line[context.mark.column - 1])"
                    }
                }
                return ScenarioDiagnostic(
                    .error, at: at(context.mark), "invalid YAML: the \(quote) that opens here is never closed",
                    hint: "end the value with the same quote")
            }
            var hints: [String] = []
            if let tip = tip(for: problem, at: mark, in: yaml) { hints.append(tip) }
            if let context {
                let (line, column) = clamped(context.mark)
                hints.append("\(context.text) at line \(line), column \(column)")
            }
            return ScenarioDiagnostic(
                .error, at: at(mark), "invalid YAML: \(problem)", hint: hints.isEmpty ? nil : hints.joined(separator: "; "))
        case .duplicatedKeysInMapping(let duplicates, let context):
            // Yams points at the first of the duplicates; point at the second,
            // where the mistake most likely is.
            let keys = duplicates.map { "'\($0)'" }
            let message = keys.count == 1
                ? "key \(keys[0]) appears more than once in the same mapping"
                : "keys \(Suggestions.list(keys)) appear more than once in the same mapping"
            if let first = duplicates.first, let second = repeatedKey(first, after: context.mark, in: yaml) {
                return ScenarioDiagnostic(
                    .error, at: SourceLocation(file: fileName, line: second.line, column: second.column), message,
                    hint: "'\(first)' is first given at line \(context.mark.line); each key may appear once")
            }
            return ScenarioDiagnostic(
                .error, at: at(context.mark), message, hint: "each key may appear once; remove or rename the others")
        case .reader(let problem, let offset, _, _):
            let location = offset.map { lineAndColumn(ofCharacterOffset: $0, in: yaml) }
                .map { SourceLocation(file: fileName, line: $0.line, column: $0.column) }
                ?? SourceLocation(file: fileName, line: 0, column: 0)
            return ScenarioDiagnostic(.error, at: location, "cannot read the file: \(problem)", hint: "save it as UTF-8 text")
        default:
            return ScenarioDiagnostic(.error, at: SourceLocation(file: fileName, line: 0, column: 0), "cannot read YAML: \(error)")
        }
    }

    /// Advice for the syntax errors people make most.
    private static func tip(for problem: String, at mark: Mark, in yaml: String) -> String? {
        if problem.contains("cannot start any token") {
            let lines = yaml.split(separator: "\n", omittingEmptySubsequences: false)
            if mark.line >= 1, mark.line <= lines.count {
                let line = Array(lines[mark.line - 1].unicodeScalars)
                if mark.column >= 1, mark.column <= line.count, line[mark.column - 1] == "\t" {
                    return "YAML does not allow tabs for indentation; use spaces"
                }
            }
            return "quote a value that starts with a special character such as '@', '`' or '%'"
        }
        if problem.contains("mapping values are not allowed") {
            return "quote a value that contains ': ', or check the indentation of this line"
        }
        if problem.contains("did not find expected key") {
            return "check this line's indentation: the keys of one mapping start in the same column"
        }
        if problem.contains("did not find expected '-' indicator") {
            return "check the indentation of this list's items"
        }
        if problem.contains("did not find expected ',' or '}'") {
            return "a {…} mapping is not closed, or two of its entries lack a ',' between them"
        }
        if problem.contains("did not find expected ',' or ']'") {
            return "a […] list is not closed, or two of its items lack a ',' between them"
        }
        if problem.contains("could not find expected ':'") {
            return "a key needs ':' after it, for example 'device: iPhone'"
        }
        if problem.contains("found unexpected end of stream") || problem.contains("found unexpected end") {
            return "a quote or bracket is not closed"
        }
        if problem.contains("undefined alias") {
            return "define the anchor (&name) before using it (*name)"
        }
        if problem.contains("another document") {
            return "a scenario file holds one document; remove the '---' line or split the file"
        }
        return nil
    }

    /// Where `key` appears again in the mapping whose key at `mark` it repeats.
    static func repeatedKey(_ key: String, after mark: Mark, in yaml: String) -> (line: Int, column: Int)? {
        let lines = yaml.split(separator: "\n", omittingEmptySubsequences: false)
            .map { Array($0.unicodeScalars.filter { $0 != "\r" }) }
        let keyScalars = Array(key.unicodeScalars)
        let column = mark.column - 1
        guard mark.line >= 1, mark.line <= lines.count else { return nil }

        /// Whether `line` has the key at `index`, followed by optional spaces and ':'.
        func keyAt(_ line: [Unicode.Scalar], _ index: Int) -> Bool {
            guard index >= 0, index + keyScalars.count <= line.count,
                  Array(line[index..<(index + keyScalars.count)]) == keyScalars
            else { return false }
            var next = index + keyScalars.count
            while next < line.count, line[next] == " " { next += 1 }
            return next < line.count && line[next] == ":"
        }

        // A flow mapping on the same line: `{a: 1, a: 2}`.
        let firstLine = lines[mark.line - 1]
        var index = column + keyScalars.count
        while index < firstLine.count {
            if firstLine[index] == "," || firstLine[index] == "{" {
                var start = index + 1
                while start < firstLine.count, firstLine[start] == " " { start += 1 }
                if keyAt(firstLine, start) { return (mark.line, start + 1) }
            }
            index += 1
        }
        // A block mapping: later lines whose key starts in the same column.
        for lineIndex in mark.line..<lines.count {
            let line = lines[lineIndex]
            guard let firstText = line.firstIndex(where: { $0 != " " }), line[firstText] != "#" else { continue }
            if firstText > column { continue }  // nested deeper
            if firstText < column { return nil }  // the mapping ended
            if keyAt(line, column) { return (lineIndex + 1, column + 1) }
        }
        return nil
    }

    private static func lineAndColumn(ofCharacterOffset offset: Int, in text: String) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        for (index, character) in text.enumerated() {
            if index >= offset { break }
            if character == "\n" || character == "\r\n" {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        return (line, column)
    }
}
