import Foundation
import SyncCore
import Yams

extension ScenarioReader {
    // MARK: Databases and zones

    func database(_ node: Node, what: String = "database") -> DatabaseScope? {
        choice(node, what: what, [("private", DatabaseScope.private), ("shared", .shared), ("public", .public)])
    }

    /// `Notes`, `Notes@alice`, or `{name: Notes, owner: alice}`.
    func zoneRef(_ node: Node, what: String = "zone") -> ZoneRef? {
        if case .mapping = node {
            guard let entries = mapping(node, in: what, keys: ["name", "owner"], required: ["name"]),
                  let nameNode = entries["name"], let name = name(nameNode, what: "\(what) name")
            else { return nil }
            guard let ownerNode = entries["owner"] else { return ZoneRef(name) }
            guard let owner = user(ownerNode, what: "\(what) owner") else { return nil }
            return ZoneRef(name, ownerName: owner)
        }
        guard let text = name(node, what: what) else { return nil }
        guard let at = text.lastIndex(of: "@") else { return ZoneRef(text) }
        let zoneName = String(text[..<at])
        let owner = String(text[text.index(after: at)...])
        guard !zoneName.isEmpty, !owner.isEmpty else {
            error(
                "\(what) '\(text)' is not a zone", hint: "write a zone name, or a zone name, '@' and its owner: Notes@alice",
                at: node)
            return nil
        }
        guard checkUser(owner, at: node) else { return nil }
        return ZoneRef(zoneName, ownerName: owner)
    }

    // MARK: Durations

    /// `500ms`, `2s`, `1.5s`, `1m`, `1h`, `1d`, `1m30s`: milliseconds, or `nil` when malformed.
    enum DurationProblem: Error, Equatable {
        case malformed
        case noUnit
        case notWholeMilliseconds
        case tooLarge
    }

    static func parseDuration(_ text: String) -> Result<Milliseconds, DurationProblem> {
        let scalars = Array(text.unicodeScalars.filter { $0 != " " })
        if scalars.isEmpty { return .failure(.malformed) }
        if scalars.allSatisfy({ ("0"..."9").contains($0) }) { return .failure(.noUnit) }
        var index = 0
        var total: Milliseconds = 0
        while index < scalars.count {
            var whole = ""
            while index < scalars.count, ("0"..."9").contains(scalars[index]) {
                whole.unicodeScalars.append(scalars[index]); index += 1
            }
            var fraction = ""
            if index < scalars.count, scalars[index] == "." {
                index += 1
                while index < scalars.count, ("0"..."9").contains(scalars[index]) {
                    fraction.unicodeScalars.append(scalars[index]); index += 1
                }
                if fraction.isEmpty { return .failure(.malformed) }
            }
            if whole.isEmpty && fraction.isEmpty { return .failure(.malformed) }
            var unit = ""
            while index < scalars.count, scalars[index].properties.isAlphabetic {
                unit.unicodeScalars.append(scalars[index]); index += 1
            }
            let perUnit: Milliseconds
            switch unit {
            case "ms": perUnit = 1
            case "s": perUnit = 1_000
            case "m": perUnit = 60_000
            case "h": perUnit = 3_600_000
            case "d": perUnit = 86_400_000
            case "": return .failure(whole.isEmpty || index < scalars.count ? .malformed : .noUnit)
            default: return .failure(.malformed)
            }
            guard fraction.count <= 9, let wholeValue = Milliseconds(whole.isEmpty ? "0" : whole),
                  let fractionValue = Milliseconds(fraction.isEmpty ? "0" : fraction)
            else { return .failure(.tooLarge) }
            var scale: Milliseconds = 1
            for _ in 0..<fraction.count { scale *= 10 }
            let (wholeMs, overflow1) = wholeValue.multipliedReportingOverflow(by: perUnit)
            let (fractionScaled, overflow2) = fractionValue.multipliedReportingOverflow(by: perUnit)
            if overflow1 || overflow2 { return .failure(.tooLarge) }
            guard fractionScaled % scale == 0 else { return .failure(.notWholeMilliseconds) }
            let (sum, overflow3) = total.addingReportingOverflow(wholeMs + fractionScaled / scale)
            if overflow3 { return .failure(.tooLarge) }
            total = sum
        }
        return .success(total)
    }

    func duration(_ node: Node, what: String) -> Milliseconds? {
        guard case .scalar(let scalar) = node, !Self.isNull(node) else {
            error(
                "\(what) must be a duration, got \(Self.describe(node))",
                hint: "write a number and a unit, like 500ms, 2s, 1m or 1h", at: node)
            return nil
        }
        let text = scalar.string.trimmingCharacters(in: .whitespaces)
        switch Self.parseDuration(text) {
        case .success(let ms): return ms
        case .failure(.noUnit):
            error("duration '\(text)' in \(what) has no unit", hint: "write \(text)ms or \(text)s", at: node)
        case .failure(.notWholeMilliseconds):
            error("duration '\(text)' in \(what) is not a whole number of milliseconds", at: node)
        case .failure(.tooLarge):
            error("duration '\(text)' in \(what) is too long", at: node)
        case .failure(.malformed):
            error(
                "malformed duration '\(text)' in \(what)", hint: "write a number and a unit, like 500ms, 2s, 1m or 1h",
                at: node)
        }
        return nil
    }

    /// Whole milliseconds, or a duration with a unit.
    func milliseconds(_ node: Node, what: String) -> Milliseconds? {
        if case .scalar(let scalar) = node, let value = Milliseconds(scalar.string.trimmingCharacters(in: .whitespaces)) {
            if value < 0 {
                error("\(what) must not be negative, got \(value)", at: node)
                return nil
            }
            return value
        }
        return duration(node, what: what)
    }

    // MARK: Timestamps

    /// `2026-01-01`, `2026-01-01T09:30:00Z`, `2026-01-01 09:30:00.250+02:00`:
    /// milliseconds since 1970 (UTC when no offset is given).
    static func parseTimestamp(_ text: String) -> Milliseconds? {
        let s = Array(text.trimmingCharacters(in: .whitespaces).unicodeScalars)
        var i = 0
        func number(_ digits: Int) -> Int? {
            guard i + digits <= s.count else { return nil }
            var value = 0
            for k in i..<(i + digits) {
                guard ("0"..."9").contains(s[k]) else { return nil }
                value = value * 10 + Int(s[k].value - 48)
            }
            i += digits
            return value
        }
        func expect(_ c: Unicode.Scalar) -> Bool {
            guard i < s.count, s[i] == c else { return false }
            i += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2) else { return nil }
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day) else { return nil }
        var hour = 0, minute = 0, second = 0, millis = 0, offsetMinutes = 0
        if i < s.count {
            guard s[i] == "T" || s[i] == "t" || s[i] == " " else { return nil }
            i += 1
            guard let h = number(2), expect(":"), let m = number(2) else { return nil }
            hour = h
            minute = m
            if expect(":") {
                guard let sec = number(2) else { return nil }
                second = sec
                if expect(".") {
                    var digits = 0
                    var value = 0
                    while i < s.count, ("0"..."9").contains(s[i]) {
                        if digits < 3 { value = value * 10 + Int(s[i].value - 48) }
                        digits += 1
                        i += 1
                    }
                    guard digits > 0 else { return nil }
                    for _ in min(digits, 3)..<3 { value *= 10 }
                    millis = value
                }
            }
            guard hour < 24, minute < 60, second < 60 else { return nil }
            if i < s.count {
                if s[i] == "Z" || s[i] == "z" {
                    i += 1
                } else if s[i] == "+" || s[i] == "-" {
                    let sign = s[i] == "-" ? -1 : 1
                    i += 1
                    guard let oh = number(2) else { return nil }
                    _ = expect(":")
                    guard let om = number(2), oh < 24, om < 60 else { return nil }
                    offsetMinutes = sign * (oh * 60 + om)
                } else {
                    return nil
                }
            }
        }
        guard i == s.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetMinutes * 60)
        return seconds * 1000 + Int64(millis)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar.
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    // MARK: Field values

    /// A record's fields: values to set and (written `name: null`) fields to remove.
    struct ParsedFields {
        var fields = RecordFields()
        var removed: [String] = []
    }

    static func isValidFieldName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else { return false }
        return name.utf8.count <= 255
            && name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") }
    }

    func fields(_ node: Node, in context: String, defaultOwner: String?, allowRemoval: Bool) -> ParsedFields? {
        guard case .mapping(let mapping) = node else {
            if Self.isNull(node) { return ParsedFields() }
            error(
                "fields in \(context) must be a mapping of field names to values, got \(Self.describe(node))",
                hint: "for example {title: Groceries, done: false}", at: node)
            return nil
        }
        var result = ParsedFields()
        var ok = true
        for (keyNode, valueNode) in mapping {
            guard case .scalar(let keyScalar) = keyNode, !Self.isNull(keyNode) else {
                error("a field name in \(context) must be a name, got \(Self.describe(keyNode))", at: keyNode)
                ok = false
                continue
            }
            let name = keyScalar.string
            guard Self.isValidFieldName(name) else {
                error(
                    "'\(name)' is not a valid field name",
                    hint: "use ASCII letters, digits and '_', starting with a letter", at: keyNode)
                ok = false
                continue
            }
            if Self.isNull(valueNode) {
                if allowRemoval {
                    result.removed.append(name)
                } else {
                    error("field '\(name)' has no value", hint: "give the value the field must have", at: valueNode)
                    ok = false
                }
                continue
            }
            if let value = fieldValue(valueNode, what: "field '\(name)'", defaultOwner: defaultOwner) {
                result.fields[name] = value
            } else {
                ok = false
            }
        }
        result.removed.sort()
        return ok ? result : nil
    }

    static func boolLiteral(_ text: String) -> Bool? {
        switch text {
        case "true", "True", "TRUE": true
        case "false", "False", "FALSE": false
        default: nil
        }
    }

    static func isIntegerLiteral(_ text: String) -> Bool {
        var scalars = Substring(text).unicodeScalars[...]
        if let first = scalars.first, first == "-" || first == "+" { scalars = scalars.dropFirst() }
        return !scalars.isEmpty && scalars.allSatisfy { ("0"..."9").contains($0) }
    }

    static func isFloatLiteral(_ text: String) -> Bool {
        // [-+]? (digits [. digits?] | . digits) ([eE] [-+]? digits)?
        let s = Array(text.unicodeScalars)
        var i = 0
        func digits() -> Int {
            let start = i
            while i < s.count, ("0"..."9").contains(s[i]) { i += 1 }
            return i - start
        }
        if i < s.count, s[i] == "-" || s[i] == "+" { i += 1 }
        let before = digits()
        var after = 0
        if i < s.count, s[i] == "." {
            i += 1
            after = digits()
        }
        guard before + after > 0 else { return false }
        if i < s.count, s[i] == "e" || s[i] == "E" {
            i += 1
            if i < s.count, s[i] == "-" || s[i] == "+" { i += 1 }
            guard digits() > 0 else { return false }
        }
        return i == s.count
    }

    /// A field value with its type inferred from plain YAML (string, whole
    /// number → INT64, number → DOUBLE, true/false → INT64 1/0), a list of
    /// such values, or `{type: T, value: V}`.
    func fieldValue(_ node: Node, what: String, defaultOwner: String?) -> FieldValue? {
        switch node {
        case .scalar:
            return inferredScalar(node, what: what)
        case .sequence(let sequence):
            return inferredList(Array(sequence), at: node, what: what)
        case .mapping:
            guard let entries = mapping(
                node, in: what, keys: ["type", "value"], required: ["type", "value"],
                example: "{type: TIMESTAMP, value: 2026-01-01T09:00:00Z}"),
                let typeNode = entries["type"], let valueNode = entries["value"],
                let typed = fieldType(typeNode)
            else { return nil }
            let (type, isList) = typed
            if isList {
                guard case .sequence(let sequence) = valueNode else {
                    error("\(type.listName) value of \(what) must be a list, got \(Self.describe(valueNode))", at: valueNode)
                    return nil
                }
                var items: [FieldValue] = []
                var ok = true
                for item in sequence {
                    if let value = typedValue(item, type: type, what: what, defaultOwner: defaultOwner) {
                        items.append(value)
                    } else {
                        ok = false
                    }
                }
                return ok ? .list(type, items) : nil
            }
            return typedValue(valueNode, type: type, what: what, defaultOwner: defaultOwner)
        case .alias:
            error("\(what) must be a value, got \(Self.describe(node))", at: node)
            return nil
        }
    }

    private func inferredScalar(_ node: Node, what: String) -> FieldValue? {
        guard case .scalar(let scalar) = node, !Self.isNull(node) else {
            error("\(what) has no value", at: node)
            return nil
        }
        guard let plain = Self.plainText(node) else { return .string(scalar.string) }
        if let bool = Self.boolLiteral(plain) { return .int64(bool ? 1 : 0) }
        if Self.isIntegerLiteral(plain) {
            guard let value = Int64(plain) else {
                error(
                    "\(what): \(plain) does not fit in an INT64", hint: "quote it to store it as a STRING", at: node)
                return nil
            }
            return .int64(value)
        }
        if Self.isFloatLiteral(plain), let value = Double(plain) { return .double(value) }
        return .string(plain)
    }

    private func inferredList(_ items: [Node], at node: Node, what: String) -> FieldValue? {
        guard !items.isEmpty else {
            error(
                "cannot tell what the empty list in \(what) holds",
                hint: "write {type: STRING_LIST, value: []} (or another list type)", at: node)
            return nil
        }
        var values: [FieldValue] = []
        for item in items {
            guard case .scalar = item, !Self.isNull(item) else {
                error(
                    "\(what): a list item must be a plain value, got \(Self.describe(item))",
                    hint: "for lists of references, locations or assets write {type: REFERENCE_LIST, value: [...]}",
                    at: item)
                return nil
            }
            guard let value = inferredScalar(item, what: what) else { return nil }
            values.append(value)
        }
        let types = Set(values.map(\.elementType))
        if types == [.int64, .double] {
            let doubles = values.map { value -> FieldValue in
                if case .int64(let i) = value { return .double(Double(i)) }
                return value
            }
            return .list(.double, doubles)
        }
        guard types.count == 1, let type = types.first else {
            let names = types.map(\.rawValue).sorted()
            error(
                "the list in \(what) mixes \(Suggestions.list(names)) values",
                hint: "give every item the same type, or write {type: STRING_LIST, value: [...]}", at: node)
            return nil
        }
        return .list(type, values)
    }

    /// `TIMESTAMP`, `string_list`, …: a field type and whether it is a list.
    func fieldType(_ node: Node) -> (FieldType, Bool)? {
        var options: [(String, (FieldType, Bool))] = []
        for type in FieldType.allCases {
            options.append((type.rawValue, (type, false)))
        }
        for type in FieldType.allCases {
            options.append((type.listName, (type, true)))
        }
        if case .scalar(let scalar) = node,
           let match = options.first(where: { $0.0 == scalar.string.uppercased() }) {
            return match.1
        }
        return choice(node, what: "field type", options)
    }

    private func typedValue(_ node: Node, type: FieldType, what: String, defaultOwner: String?) -> FieldValue? {
        let label = "\(type.rawValue) value of \(what)"
        switch type {
        case .string:
            return text(node, what: label).map(FieldValue.string)
        case .int64:
            if let plain = Self.plainText(node), let bool = Self.boolLiteral(plain) { return .int64(bool ? 1 : 0) }
            guard case .scalar(let scalar) = node, let value = Int64(scalar.string.trimmingCharacters(in: .whitespaces)) else {
                error("\(label) must be a whole number, got \(Self.describe(node))", at: node)
                return nil
            }
            return .int64(value)
        case .double:
            guard case .scalar(let scalar) = node, Self.isFloatLiteral(scalar.string.trimmingCharacters(in: .whitespaces)),
                  let value = Double(scalar.string.trimmingCharacters(in: .whitespaces))
            else {
                error("\(label) must be a number, got \(Self.describe(node))", at: node)
                return nil
            }
            return .double(value)
        case .bytes:
            guard let text = text(node, what: label) else { return nil }
            guard let data = Data(base64Encoded: text) else {
                error("\(label) must be base64, got \(Self.describe(node))", hint: "for example aGVsbG8= for 'hello'", at: node)
                return nil
            }
            return .bytes(data)
        case .encryptedBytes:
            guard let text = text(node, what: label) else { return nil }
            guard let data = Data(base64Encoded: text) else {
                error("\(label) must be base64, got \(Self.describe(node))", hint: "for example aGVsbG8= for 'hello'", at: node)
                return nil
            }
            return .encryptedBytes(data)
        case .timestamp:
            guard case .scalar(let scalar) = node, !Self.isNull(node) else {
                error("\(label) must be a date, got \(Self.describe(node))", at: node)
                return nil
            }
            let text = scalar.string.trimmingCharacters(in: .whitespaces)
            if Self.isIntegerLiteral(text), let ms = Int64(text) { return .timestamp(ms) }
            if let ms = Self.parseTimestamp(text) { return .timestamp(ms) }
            error(
                "\(label) must be a date, got \(Self.describe(node))",
                hint: "write 2026-01-01, 2026-01-01T09:30:00Z, or milliseconds since 1970", at: node)
            return nil
        case .reference:
            return reference(node, label: label, defaultOwner: defaultOwner).map(FieldValue.reference)
        case .location:
            guard let entries = mapping(
                node, in: label, keys: ["latitude", "longitude"], required: ["latitude", "longitude"],
                example: "{latitude: 48.85, longitude: 2.35}"),
                let latNode = entries["latitude"], let lonNode = entries["longitude"]
            else { return nil }
            let latitude = coordinate(latNode, what: "latitude", range: -90...90)
            let longitude = coordinate(lonNode, what: "longitude", range: -180...180)
            guard let latitude, let longitude else { return nil }
            return .location(Location(latitude: latitude, longitude: longitude))
        case .asset:
            guard let entries = mapping(
                node, in: label, keys: ["fileChecksum", "size", "downloadURL"], required: ["fileChecksum", "size"],
                example: "{fileChecksum: abc123, size: 2048}"),
                let checksumNode = entries["fileChecksum"], let sizeNode = entries["size"]
            else { return nil }
            let checksum = name(checksumNode, what: "fileChecksum")
            let size = wholeNumber(sizeNode, what: "size", atLeast: 0)
            let url = entries["downloadURL"].map { text($0, what: "downloadURL") }
            guard let checksum, let size, url.map({ $0 != nil }) ?? true else { return nil }
            return .asset(AssetDescriptor(fileChecksum: checksum, size: Int64(size), downloadURL: url ?? nil))
        }
    }

    private func coordinate(_ node: Node, what: String, range: ClosedRange<Double>) -> Double? {
        guard case .scalar(let scalar) = node, Self.isFloatLiteral(scalar.string), let value = Double(scalar.string) else {
            error("\(what) must be a number, got \(Self.describe(node))", at: node)
            return nil
        }
        guard range.contains(value) else {
            error("\(what) must be between \(Int(range.lowerBound)) and \(Int(range.upperBound)), got \(scalar.string)", at: node)
            return nil
        }
        return value
    }

    /// `note-1`, or `{record: note-1, zone: Notes, action: DELETE_SELF}`.
    private func reference(_ node: Node, label: String, defaultOwner: String?) -> RecordReference? {
        if case .mapping = node {
            guard let entries = mapping(
                node, in: label, keys: ["record", "zone", "action"], required: ["record"],
                example: "{record: list-1, action: DELETE_SELF}"),
                let recordNode = entries["record"]
            else { return nil }
            let recordName = name(recordNode, what: "record")
            var zoneID: RecordZoneID?
            var ok = true
            if let zoneNode = entries["zone"] {
                if let zone = zoneRef(zoneNode) {
                    if let owner = zone.ownerName ?? defaultOwner {
                        zoneID = RecordZoneID(zoneName: zone.zoneName, ownerName: owner)
                    } else {
                        error("cannot tell whose zone '\(zone.zoneName)' is", hint: "write it with its owner, for example \(zone.zoneName)@alice", at: zoneNode)
                        ok = false
                    }
                } else {
                    ok = false
                }
            }
            var action = ReferenceAction.none
            if let actionNode = entries["action"] {
                if let chosen: ReferenceAction = choice(actionNode, what: "reference action", [("NONE", .none), ("DELETE_SELF", .deleteSelf)]) {
                    action = chosen
                } else {
                    ok = false
                }
            }
            guard ok, let recordName else { return nil }
            return RecordReference(recordName: recordName, zoneID: zoneID, action: action)
        }
        return name(node, what: label).map { RecordReference(recordName: $0) }
    }
}
