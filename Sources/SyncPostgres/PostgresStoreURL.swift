import Foundation

/// Where a shared store lives: `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=MODE]`.
///
/// The same address works from the `--store` option and from the
/// `SYNCSCOPE_STORE` environment variable. `postgresql://` is accepted too.
///
/// Rules:
/// - USER, HOST and DATABASE are required; PORT defaults to 5432.
/// - Without a password in the address, `PGPASSWORD` from the environment is
///   used when set (as `psql` does), so the password need not appear in a
///   process list.
/// - USER, PASSWORD and DATABASE may be percent-encoded (`%40` for `@`).
/// - `sslmode` is `disable`, `prefer` (the default: TLS when the server
///   offers it) or `require`.
/// - ``description`` never shows the password.
public struct PostgresStoreURL: Sendable, Equatable, CustomStringConvertible {
    public enum TLSMode: String, Sendable, Equatable, CaseIterable {
        case disable, prefer, require
    }

    public var user: String
    public var password: String?
    public var host: String
    public var port: Int
    public var database: String
    public var tls: TLSMode

    public init(user: String, password: String? = nil, host: String, port: Int = 5432, database: String, tls: TLSMode = .prefer) {
        self.user = user
        self.password = password
        self.host = host
        self.port = port
        self.database = database
        self.tls = tls
    }

    /// The environment variable that names the store when `--store` is not given.
    public static let environmentVariable = "SYNCSCOPE_STORE"

    /// Whether `text` is meant as a PostgreSQL address (its scheme), malformed or not.
    public static func isPostgresAddress(_ text: String) -> Bool {
        let lowered = text.lowercased()
        return lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://")
    }

    /// Parses an address; a malformed one throws a ``PostgresStoreError`` of kind
    /// `.malformedURL` whose sentence names what is wrong and shows the expected shape.
    public init(parsing text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(PostgresStoreError) {
        let shape = "postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE"
        func malformed(_ what: String) -> PostgresStoreError {
            PostgresStoreError(.malformedURL, "The store address \(Self.redacted(text)) \(what): write it as \(shape).")
        }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let schemeEnd = trimmed.range(of: "://") else { throw malformed("has no scheme") }
        let scheme = trimmed[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "postgres" || scheme == "postgresql" else {
            throw malformed("starts with \(scheme)://, not postgres://")
        }
        var rest = Substring(trimmed[schemeEnd.upperBound...])
        var query: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        guard let at = rest.lastIndex(of: "@") else { throw malformed("names no user (USER@ before the host)") }
        let userInfo = rest[..<at]
        let hostAndPath = rest[rest.index(after: at)...]
        let userPart: Substring
        var passwordPart: Substring?
        if let colon = userInfo.firstIndex(of: ":") {
            userPart = userInfo[..<colon]
            passwordPart = userInfo[userInfo.index(after: colon)...]
        } else {
            userPart = userInfo
        }
        guard let user = userPart.removingPercentEncoding, !user.isEmpty else { throw malformed("names no user (USER@ before the host)") }
        var password: String?
        if let passwordPart {
            guard let decoded = passwordPart.removingPercentEncoding else { throw malformed("has a password with a broken %-escape") }
            password = decoded
        }
        guard let slash = hostAndPath.firstIndex(of: "/") else { throw malformed("names no database (/DATABASE after the host)") }
        let hostPort = hostAndPath[..<slash]
        let databasePart = hostAndPath[hostAndPath.index(after: slash)...]
        guard let database = databasePart.removingPercentEncoding, !database.isEmpty, !database.contains("/") else {
            throw malformed("names no database (/DATABASE after the host)")
        }
        var host: Substring
        var portText: Substring?
        if hostPort.hasPrefix("[") {
            // An IPv6 address: [::1]:5432
            guard let close = hostPort.firstIndex(of: "]") else { throw malformed("has an IPv6 host without its closing ]") }
            host = hostPort[hostPort.index(after: hostPort.startIndex)..<close]
            let after = hostPort[hostPort.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw malformed("has something other than :PORT after the IPv6 host") }
                portText = after.dropFirst()
            }
        } else if let colon = hostPort.lastIndex(of: ":") {
            host = hostPort[..<colon]
            portText = hostPort[hostPort.index(after: colon)...]
        } else {
            host = hostPort
        }
        guard !host.isEmpty else { throw malformed("names no host (HOST after the @)") }
        var port = 5432
        if let portText {
            guard let value = Int(portText), (1...65535).contains(value) else {
                throw malformed("has the port '\(portText)', which is not a number from 1 to 65535")
            }
            port = value
        }
        var tls = TLSMode.prefer
        for pair in query.split(separator: "&") where !pair.isEmpty {
            let parts = pair.split(separator: "=", maxSplits: 1)
            let key = String(parts[0])
            let value = parts.count > 1 ? String(parts[1]) : ""
            guard key == "sslmode" else { throw malformed("has the option '\(key)', which syncscope does not know (only sslmode)") }
            guard let mode = TLSMode(rawValue: value) else {
                throw malformed("has sslmode=\(value); use disable, prefer or require")
            }
            tls = mode
        }
        if password == nil, let fromEnvironment = environment["PGPASSWORD"], !fromEnvironment.isEmpty {
            password = fromEnvironment
        }
        self.init(user: user, password: password, host: String(host), port: port, database: database, tls: tls)
    }

    /// The store named by `SYNCSCOPE_STORE`, or `nil` when it is unset or empty.
    /// A value that is not a PostgreSQL address throws, naming the variable.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws(PostgresStoreError) -> PostgresStoreURL? {
        guard let value = environment[environmentVariable]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        do {
            return try PostgresStoreURL(parsing: value, environment: environment)
        } catch {
            throw PostgresStoreError(error.kind, "\(environmentVariable): \(error.description)")
        }
    }

    /// `HOST:PORT`, with brackets around an IPv6 host.
    public var hostAndPort: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// The address without its password.
    public var description: String {
        "postgres://\(user)@\(hostAndPort)/\(database)\(tls == .prefer ? "" : "?sslmode=\(tls.rawValue)")"
    }

    /// An address as typed, with any password replaced by `***`, for error sentences.
    static func redacted(_ text: String) -> String {
        guard let schemeEnd = text.range(of: "://"), let at = text[schemeEnd.upperBound...].lastIndex(of: "@") else { return "'\(text)'" }
        let userInfo = text[schemeEnd.upperBound..<at]
        guard let colon = userInfo.firstIndex(of: ":") else { return "'\(text)'" }
        return "'\(text[..<colon]):***\(text[at...])'"
    }
}
