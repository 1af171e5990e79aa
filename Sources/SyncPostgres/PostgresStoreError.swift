import Foundation
import NIOCore
import PostgresNIO

/// Why the shared store cannot do what was asked, as a sentence that names
/// the problem and what to do about it (never a dump of the driver's error).
public struct PostgresStoreError: Error, CustomStringConvertible, Sendable {
    public enum Kind: String, Sendable, Equatable {
        /// The `--store` / `SYNCSCOPE_STORE` address cannot be read.
        case malformedURL
        /// No PostgreSQL answers at the address (refused, timed out, no such host).
        case unreachable
        /// PostgreSQL answered but refused the user or its password.
        case credentialsRejected
        /// PostgreSQL has no database of that name.
        case noSuchDatabase
        /// The database holds no SyncScope schema: `--migrate` was never run on it.
        case notMigrated
        /// The database holds a SyncScope schema of another version.
        case schemaVersionMismatch
        /// A journal row or checkpoint does not read back as it was written.
        case damaged
        /// The rows asked for were folded into a checkpoint and deleted.
        case historyFolded
        /// Any other failure of PostgreSQL or of the connection to it.
        case failed
    }

    public var kind: Kind
    public var description: String

    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }

    /// A driver error as a sentence about `url`.
    static func from(_ error: any Error, url: PostgresStoreURL, doing action: String) -> PostgresStoreError {
        if let error = error as? PostgresStoreError { return error }
        if let error = error as? PostgresTransactionError {
            if let inner = error.closureError ?? error.beginError ?? error.commitError { return from(inner, url: url, doing: action) }
        }
        guard let error = error as? PSQLError else {
            return PostgresStoreError(.failed, "PostgreSQL at \(url.hostAndPort) failed while \(action): \(error).")
        }
        let state = error.serverInfo?[.sqlState]
        let said = error.serverInfo?[.message].map { " (PostgreSQL says: \($0))" } ?? ""
        switch (error.code, state) {
        case (.server, "28P01"), (.server, "28000"):
            return PostgresStoreError(
                .credentialsRejected,
                "PostgreSQL at \(url.hostAndPort) refused the user '\(url.user)'\(said): the password is wrong or the user does not exist. Check USER and PASSWORD in the store address (postgres://USER:PASSWORD@HOST:PORT/DB), or set PGPASSWORD.")
        case (.authMechanismRequiresPassword, _), (.saslError, _):
            return PostgresStoreError(
                .credentialsRejected,
                "PostgreSQL at \(url.hostAndPort) wants a password for the user '\(url.user)' and none was accepted: put it in the store address (postgres://USER:PASSWORD@HOST:PORT/DB) or in PGPASSWORD.")
        case (.server, "3D000"):
            return PostgresStoreError(
                .noSuchDatabase,
                "PostgreSQL at \(url.hostAndPort) has no database named '\(url.database)'\(said). Create it (createdb -h \(url.host) -p \(url.port) -U \(url.user) \(url.database)), then run syncscope serve --store \(url) --migrate.")
        case (.connectionError, _), (.serverClosedConnection, _), (.uncleanShutdown, _), (.poolClosed, _):
            let why = error.underlying.map { " (\(Self.describe($0)))" } ?? ""
            return PostgresStoreError(
                .unreachable,
                "Cannot reach PostgreSQL at \(url.hostAndPort)\(why) while \(action): is it running and listening on that host and port? Check HOST and PORT in the store address.")
        case (.sslUnsupported, _):
            return PostgresStoreError(
                .unreachable,
                "PostgreSQL at \(url.hostAndPort) does not offer TLS, and the store address asks for sslmode=require. Enable TLS on the server, or use sslmode=prefer.")
        default:
            return PostgresStoreError(.failed, "PostgreSQL at \(url.hostAndPort) failed while \(action)\(said.isEmpty ? ": \(error.code)" : said).")
        }
    }

    /// A connection failure in a few words: "connection refused", not a type dump.
    static func describe(_ error: any Error) -> String {
        if let error = error as? IOError { return Self.lowercasedFirst(String(cString: strerror(error.errnoCode))) }
        if let error = error as? NIOConnectionError {
            if let first = error.connectionErrors.first { return describe(first.error) }
            if let dns = error.dnsAAAAError ?? error.dnsAError { return "the host name cannot be resolved: \(dns)" }
            return "no address to connect to"
        }
        if error is ChannelError, case .connectTimeout = error as? ChannelError { return "no answer before the connect timeout" }
        return "\(error)"
    }

    private static func lowercasedFirst(_ text: String) -> String { text.prefix(1).lowercased() + text.dropFirst() }
}
