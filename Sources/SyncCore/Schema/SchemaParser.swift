/// Reads CloudKit's schema language (``SchemaLanguage``), keeping each
/// token's line and column for its errors.
struct SchemaParser {
    static let keywords: Set<String> = [
        "DEFINE", "SCHEMA", "CREATE", "ROLE", "RECORD", "TYPE", "GRANT", "TO", "READ", "WRITE", "LIST", "ENCRYPTED",
        "QUERYABLE", "SORTABLE", "SEARCHABLE",
    ]

    struct Token {
        enum Kind: Equatable { case word, quoted, symbol, end }
        var kind: Kind
        var text: String
        var line: Int
        var column: Int
    }

    private var tokens: [Token] = []
    private var position = 0
    private var lexError: SchemaSyntaxError?

    init(_ text: String) {
        var line = 1
        var column = 1
        var chars = Array(text.unicodeScalars)[...]
        func advance() {
            if chars.first == "\n" {
                line += 1
                column = 1
            } else {
                column += 1
            }
            chars = chars.dropFirst()
        }
        while let c = chars.first {
            if c == "\n" || c == " " || c == "\t" || c == "\r" {
                advance()
            } else if (c == "/" && chars.dropFirst().first == "/") || (c == "-" && chars.dropFirst().first == "-") {
                while let d = chars.first, d != "\n" { advance() }
            } else if c == "\"" {
                let (l, col) = (line, column)
                advance()
                var name = ""
                while let d = chars.first, d != "\"", d != "\n" {
                    name.unicodeScalars.append(d)
                    advance()
                }
                guard chars.first == "\"" else {
                    lexError = SchemaSyntaxError(line: l, column: col, message: "this quoted name is not closed on its line")
                    break
                }
                advance()
                tokens.append(Token(kind: .quoted, text: name, line: l, column: col))
            } else if c.properties.isAlphabetic || c == "_" || ("0"..."9").contains(c) {
                let (l, col) = (line, column)
                var word = ""
                while let d = chars.first, d.isASCII && (d.properties.isAlphabetic || d == "_" || ("0"..."9").contains(d)) || (!d.isASCII && d.properties.isAlphabetic) {
                    word.unicodeScalars.append(d)
                    advance()
                }
                tokens.append(Token(kind: .word, text: word, line: l, column: col))
            } else if "(),;<>".unicodeScalars.contains(c) {
                tokens.append(Token(kind: .symbol, text: String(c), line: line, column: column))
                advance()
            } else {
                lexError = SchemaSyntaxError(line: line, column: column, message: "unexpected character '\(c)'")
                break
            }
        }
        tokens.append(Token(kind: .end, text: "", line: line, column: column))
    }

    private var current: Token { tokens[position] }

    private func error(_ message: String, at token: Token? = nil) -> SchemaSyntaxError {
        let t = token ?? current
        return SchemaSyntaxError(line: t.line, column: t.column, message: message)
    }

    private func isKeyword(_ word: String) -> Bool {
        current.kind == .word && current.text.uppercased() == word
    }

    private var shown: String { current.kind == .end ? "the end of the file" : "'\(current.text)'" }

    private mutating func expectKeyword(_ word: String, _ context: String) throws(SchemaSyntaxError) {
        guard isKeyword(word) else { throw error("expected \(word) \(context), found \(shown)") }
        position += 1
    }

    private mutating func expectSymbol(_ symbol: String, _ context: String) throws(SchemaSyntaxError) {
        guard current.kind == .symbol, current.text == symbol else { throw error("expected '\(symbol)' \(context), found \(shown)") }
        position += 1
    }

    private mutating func name(_ what: String) throws(SchemaSyntaxError) -> Token {
        let token = current
        switch token.kind {
        case .quoted:
            guard !token.text.isEmpty else { throw error("the \(what) is empty") }
        case .word:
            guard !Self.keywords.contains(token.text.uppercased()) else {
                throw error("expected a \(what), found the keyword \(token.text.uppercased()) (quote it to use it as a name)")
            }
        default:
            throw error("expected a \(what), found \(shown)")
        }
        position += 1
        return token
    }

    mutating func schema() throws(SchemaSyntaxError) -> ContainerSchema {
        if let lexError { throw lexError }
        try expectKeyword("DEFINE", "at the start of the schema")
        try expectKeyword("SCHEMA", "after DEFINE")
        var schema = ContainerSchema()
        while current.kind != .end {
            if isKeyword("CREATE") {
                position += 1
                try expectKeyword("ROLE", "after CREATE")
                let role = try name("role name")
                guard !schema.roles.contains(role.text) else { throw error("role \(role.text) is created twice", at: role) }
                schema.roles.append(role.text)
            } else if isKeyword("RECORD") {
                let type = try recordType(schema)
                schema.recordTypes[type.name] = type
            } else {
                throw error("expected RECORD TYPE or CREATE ROLE, found \(shown)")
            }
            if current.kind == .symbol, current.text == ";" { position += 1 }
        }
        schema.roles.sort()
        return schema
    }

    private mutating func recordType(_ schema: ContainerSchema) throws(SchemaSyntaxError) -> RecordTypeSchema {
        position += 1
        try expectKeyword("TYPE", "after RECORD")
        let nameToken = try name("record type name")
        guard schema.recordTypes[nameToken.text] == nil else {
            throw error("record type \(nameToken.text) is defined twice", at: nameToken)
        }
        try checkName(nameToken, what: "record type name")
        var type = RecordTypeSchema(name: nameToken.text, grants: [])
        try expectSymbol("(", "after the record type's name")
        var systemSeen = Set<String>()
        while true {
            if current.kind == .symbol, current.text == ")" { break }
            if isKeyword("GRANT") {
                type.grants.append(try grant())
            } else {
                let fieldToken = try name("field name")
                let fieldType = try self.fieldType()
                var indexes: FieldIndexes = []
                while let keyword = FieldIndexes.keywords.first(where: { isKeyword($0.keyword) }) {
                    guard fieldType.allowedIndexes.contains(keyword.index) else {
                        throw error("\(fieldType) fields cannot be \(keyword.keyword)\(Self.indexHint(fieldType))")
                    }
                    indexes.insert(keyword.index)
                    position += 1
                }
                if fieldToken.text.hasPrefix("___") {
                    guard let systemType = RecordTypeSchema.systemFieldType(fieldToken.text) else {
                        throw error("\(fieldToken.text) is not a system field (those are \(RecordTypeSchema.systemFields.map(\.name).joined(separator: ", ")))", at: fieldToken)
                    }
                    guard systemType == fieldType else {
                        throw error("system field \(fieldToken.text) is a \(systemType), not a \(fieldType)", at: fieldToken)
                    }
                    guard systemSeen.insert(fieldToken.text).inserted else { throw error("field \(fieldToken.text) is listed twice", at: fieldToken) }
                    if !indexes.isEmpty { type.systemIndexes[fieldToken.text] = indexes }
                } else {
                    try checkName(fieldToken, what: "field name")
                    guard type.fields[fieldToken.text] == nil else { throw error("field \(fieldToken.text) is listed twice", at: fieldToken) }
                    type.fields[fieldToken.text] = FieldDefinition(name: fieldToken.text, type: fieldType, indexes: indexes)
                }
            }
            if current.kind == .symbol, current.text == "," {
                position += 1
                continue
            }
            guard current.kind == .symbol, current.text == ")" else {
                throw error("expected ',' or ')' after a field or grant of \(nameToken.text), found \(shown)")
            }
        }
        position += 1
        return type
    }

    private static func indexHint(_ type: SchemaFieldType) -> String {
        let allowed = type.allowedIndexes.names
        return allowed.isEmpty ? " (they can have no index)" : " (they can be \(allowed.joined(separator: ", ")))"
    }

    /// Record type and field names as CloudKit allows them: ASCII letters, digits and `_`, starting with a letter.
    private func checkName(_ token: Token, what: String) throws(SchemaSyntaxError) {
        let scalars = token.text.unicodeScalars
        let valid = token.text.utf8.count <= 255
            && (scalars.first.map { $0.isASCII && $0.properties.isAlphabetic } ?? false)
            && scalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") }
        guard valid else {
            throw error("'\(token.text)' is not a valid \(what): use ASCII letters, digits and '_', starting with a letter", at: token)
        }
    }

    private mutating func fieldType() throws(SchemaSyntaxError) -> SchemaFieldType {
        if isKeyword("LIST") {
            position += 1
            try expectSymbol("<", "after LIST")
            var element = try plainType()
            try expectSymbol(">", "after the list's element type")
            element.isList = true
            return element
        }
        return try plainType()
    }

    private mutating func plainType() throws(SchemaSyntaxError) -> SchemaFieldType {
        var encrypted = false
        if isKeyword("ENCRYPTED") {
            encrypted = true
            position += 1
        }
        guard current.kind == .word, let primitive = SchemaFieldType.Primitive(rawValue: current.text.uppercased()) else {
            throw error("expected a field type (\(SchemaFieldType.Primitive.allCases.map(\.rawValue).joined(separator: ", ")), LIST<…> or ENCRYPTED …), found \(shown)")
        }
        if encrypted, !primitive.canBeEncrypted {
            throw error("\(primitive.rawValue) cannot be ENCRYPTED (an ASSET is encrypted anyway; a REFERENCE stays readable by the server)")
        }
        position += 1
        return SchemaFieldType(primitive, encrypted: encrypted)
    }

    private mutating func grant() throws(SchemaSyntaxError) -> RecordTypeSchema.Grant {
        position += 1
        var permissions: [String] = []
        repeat {
            if !permissions.isEmpty { position += 1 }
            guard current.kind == .word, ["READ", "CREATE", "WRITE"].contains(current.text.uppercased()) else {
                throw error("expected READ, CREATE or WRITE after GRANT, found \(shown)")
            }
            permissions.append(current.text.uppercased())
            position += 1
        } while current.kind == .symbol && current.text == ","
        try expectKeyword("TO", "after the granted permissions")
        let role = try name("role name")
        return RecordTypeSchema.Grant(permissions: permissions, role: role.text)
    }
}
