import Foundation
import SyncCore
import Yams

/// A mapping's entries in file order, with the node of each key.
struct Entries {
    struct Entry {
        var key: String
        var keyNode: Node
        var value: Node
    }

    let node: Node
    let context: String
    let items: [Entry]

    subscript(key: String) -> Node? { items.first { $0.key == key }?.value }

    func keyNode(_ key: String) -> Node? { items.first { $0.key == key }?.keyNode }

    func has(_ key: String) -> Bool { items.contains { $0.key == key } }
}

/// Reads a composed YAML tree into a ``Scenario``, collecting every problem
/// it finds instead of stopping at the first.
///
/// Readers return `nil` after reporting a problem; callers carry on with the
/// rest of the file so that one run shows as many problems as possible.
final class ScenarioReader {
    let fileName: String
    private(set) var diagnostics: [ScenarioDiagnostic] = []

    // What the file declares, for checking references.
    var users: [String] = []
    var devices: [DeviceSetup] = []
    var deviceNames: [String] = []

    // Collected while reading steps, checked once every step is read.
    struct TokenUse {
        var name: String
        var location: SourceLocation
        var stepIndex: Int
    }
    struct ZoneUse {
        var zone: ZoneRef
        var location: SourceLocation
        var stepIndex: Int
    }
    /// Every step read, even those with errors (`kind` is then `nil`).
    struct ReadStep {
        var index: Int
        var kind: StepKind?
        var location: SourceLocation
    }
    var readSteps: [ReadStep] = []
    var captures: [TokenUse] = []
    var tokenUses: [TokenUse] = []
    var zoneUses: [ZoneUse] = []
    var createdZoneNames: [String] = []
    /// Index of the step being read.
    var currentStepIndex = 0

    init(fileName: String) {
        self.fileName = fileName
    }

    var hasErrors: Bool { diagnostics.contains { $0.severity == .error } }

    // MARK: Diagnostics

    func location(of node: Node) -> SourceLocation {
        guard let mark = node.mark else { return SourceLocation(file: fileName, line: 0, column: 0) }
        return SourceLocation(file: fileName, line: mark.line, column: mark.column)
    }

    func error(_ message: String, hint: String? = nil, at node: Node) {
        error(message, hint: hint, at: location(of: node))
    }

    func error(_ message: String, hint: String? = nil, at location: SourceLocation) {
        diagnostics.append(ScenarioDiagnostic(.error, at: location, message, hint: hint))
    }

    func warning(_ message: String, hint: String? = nil, at location: SourceLocation) {
        diagnostics.append(ScenarioDiagnostic(.warning, at: location, message, hint: hint))
    }

    // MARK: Node shapes

    static func isNull(_ node: Node) -> Bool {
        guard case .scalar(let scalar) = node else { return false }
        if scalar.tag.rawValue == Tag.Name.null.rawValue { return true }
        guard scalar.style == .plain || scalar.style == .any else { return false }
        return ["", "~", "null", "Null", "NULL"].contains(scalar.string)
    }

    /// A plain (unquoted, untagged) scalar's text: the only kind whose type is inferred.
    static func plainText(_ node: Node) -> String? {
        guard case .scalar(let scalar) = node, scalar.style == .plain || scalar.style == .any,
              [Tag.Name.implicit.rawValue, Tag.Name.nonSpecific.rawValue].contains(scalar.tag.rawValue)
        else { return nil }
        return scalar.string
    }

    /// How a node reads in a message: `'many'`, `a list`, `a mapping`, `nothing`.
    static func describe(_ node: Node) -> String {
        switch node {
        case .scalar(let scalar):
            if isNull(node) { return "nothing" }
            let text = scalar.string.replacingOccurrences(of: "\n", with: " ")
            return text.count > 40 ? "'\(text.prefix(40))…'" : "'\(text)'"
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .alias: return "an alias"
        }
    }

    // MARK: Mappings

    /// Reads a mapping, reporting unknown keys (with the closest known key)
    /// and missing required ones. `nothing` reads as an empty mapping.
    func mapping(
        _ node: Node, in context: String, keys: [String], required: [String] = [], example: String? = nil
    ) -> Entries? {
        var items: [Entries.Entry] = []
        switch node {
        case .mapping(let mapping):
            for (keyNode, value) in mapping {
                guard case .scalar(let keyScalar) = keyNode, !Self.isNull(keyNode) else {
                    error("a key in \(context) must be a name, got \(Self.describe(keyNode))", at: keyNode)
                    continue
                }
                let key = keyScalar.string
                guard keys.contains(key) else {
                    let fallback = keys.isEmpty ? nil : "\(context) takes \(Suggestions.list(keys))"
                    error(
                        "unknown key '\(key)' in \(context)",
                        hint: Suggestions.hint(for: key, in: keys, otherwise: fallback), at: keyNode)
                    continue
                }
                items.append(Entries.Entry(key: key, keyNode: keyNode, value: value))
            }
        case _ where Self.isNull(node):
            break
        default:
            error(
                "\(context) must be a mapping of keys to values, got \(Self.describe(node))",
                hint: example.map { "for example \($0)" }, at: node)
            return nil
        }
        let entries = Entries(node: node, context: context, items: items)
        let missing = required.filter { !entries.has($0) }
        if !missing.isEmpty {
            let names = missing.map { "'\($0)'" }
            error(
                "\(context) needs \(Suggestions.list(names))", hint: example.map { "for example \($0)" }, at: node)
        }
        return entries
    }

    /// The entries of a sequence; a single item stands for a list of one.
    func list(_ node: Node, what: String) -> [Node]? {
        switch node {
        case .sequence(let sequence): return Array(sequence)
        case .scalar where Self.isNull(node):
            error("\(what) must be a list, got nothing", at: node)
            return nil
        case .scalar, .mapping: return [node]
        case .alias:
            error("\(what) must be a list, got \(Self.describe(node))", at: node)
            return nil
        }
    }

    // MARK: Scalars

    /// Any text (numbers too: a record may be called `1`).
    func text(_ node: Node, what: String) -> String? {
        guard case .scalar(let scalar) = node, !Self.isNull(node) else {
            error("\(what) must be text, got \(Self.describe(node))", at: node)
            return nil
        }
        return scalar.string
    }

    /// A non-empty name without line breaks.
    func name(_ node: Node, what: String) -> String? {
        guard let text = text(node, what: what) else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty {
            error("\(what) must not be empty", at: node)
            return nil
        }
        if trimmed.contains(where: \.isNewline) {
            error("\(what) must be on one line, got \(Self.describe(node))", at: node)
            return nil
        }
        return trimmed
    }

    /// Names: a list, or one name for a list of one.
    func names(_ node: Node, what: String) -> [String]? {
        guard let items = list(node, what: what) else { return nil }
        var result: [String] = []
        var ok = true
        for item in items {
            if let name = name(item, what: "each of \(what)") { result.append(name) } else { ok = false }
        }
        return ok ? result : nil
    }

    func wholeNumber(_ node: Node, what: String, atLeast minimum: Int? = nil) -> Int? {
        guard case .scalar(let scalar) = node, !Self.isNull(node),
              let value = Int(scalar.string.trimmingCharacters(in: .whitespaces))
        else {
            error("\(what) must be a whole number, got \(Self.describe(node))", at: node)
            return nil
        }
        if let minimum, value < minimum {
            error("\(what) must be at least \(minimum), got \(value)", at: node)
            return nil
        }
        return value
    }

    func bool(_ node: Node, what: String) -> Bool? {
        if case .scalar(let scalar) = node {
            switch scalar.string.lowercased() {
            case "true": return true
            case "false": return false
            default: break
            }
        }
        error("\(what) must be true or false, got \(Self.describe(node))", at: node)
        return nil
    }

    /// One of a fixed set of spellings.
    func choice<T>(_ node: Node, what: String, _ options: [(String, T)], aliases: [String: T] = [:]) -> T? {
        guard case .scalar(let scalar) = node, !Self.isNull(node) else {
            let spellings = options.map(\.0)
            error(
                "\(what) must be one of \(Suggestions.list(spellings, conjunction: "or")), got \(Self.describe(node))",
                at: node)
            return nil
        }
        let word = scalar.string.trimmingCharacters(in: .whitespaces)
        if let match = options.first(where: { $0.0 == word }) { return match.1 }
        if let alias = aliases[word] { return alias }
        let spellings = options.map(\.0)
        error(
            "unknown \(what) '\(word)'",
            hint: Suggestions.hint(for: word, in: spellings, otherwise: "use \(Suggestions.list(spellings, conjunction: "or"))"),
            at: node)
        return nil
    }

    func choice<T: RawRepresentable & CaseIterable>(_ node: Node, what: String, aliases: [String: T] = [:]) -> T?
    where T.RawValue == String {
        choice(node, what: what, T.allCases.map { ($0.rawValue, $0) }, aliases: aliases)
    }

    // MARK: References to declarations

    func device(_ node: Node, what: String = "device") -> String? {
        guard let name = name(node, what: what) else { return nil }
        guard deviceNames.contains(name) else {
            let declared = deviceNames.isEmpty
                ? "no devices are declared; add it under 'devices:'"
                : "declared devices: \(deviceNames.joined(separator: ", "))"
            error(
                "device '\(name)' is not declared",
                hint: Suggestions.hint(for: name, in: deviceNames, otherwise: declared), at: node)
            return nil
        }
        return name
    }

    func user(_ node: Node, what: String = "user") -> String? {
        guard let name = name(node, what: what) else { return nil }
        checkUser(name, at: node)
        return users.contains(name) ? name : nil
    }

    @discardableResult
    func checkUser(_ name: String, at node: Node) -> Bool {
        guard users.contains(name) else {
            let declared = users.isEmpty
                ? "no users are declared; add it under 'users:'"
                : "declared users: \(users.joined(separator: ", "))"
            error("user '\(name)' is not declared", hint: Suggestions.hint(for: name, in: users, otherwise: declared), at: node)
            return false
        }
        return true
    }

    /// The user a device signs in as.
    func userOf(device: String?) -> String? {
        guard let device else { return nil }
        return devices.first { $0.name == device }?.user
    }
}
