import Foundation
import SyncCore
import SyncWire

/// `users.json` in a server's data folder: each user of the server and their
/// web auth token, `{"users": [{"name": …, "webAuthToken": …}]}`.
///
/// `syncscope serve` writes it (readable by its owner only) whenever the users
/// or their tokens change; `syncscope client` and `syncscope device` read a
/// user's token from it when no `--token` is given. This is the one type for
/// that file: the server and every reader use it, so the shape is written
/// down once.
public struct UsersFile: Codable, Sendable, Hashable {
    /// One user and the token that signs them in.
    public struct User: Codable, Sendable, Hashable {
        public var name: String
        public var webAuthToken: String

        public init(name: String, webAuthToken: String) {
            self.name = name
            self.webAuthToken = webAuthToken
        }
    }

    public var users: [User]

    public init(users: [User]) {
        self.users = users
    }

    /// `users.json`.
    public static let fileName = "users.json"

    /// Where the file lives in a data folder.
    public static func url(in directory: URL) -> URL {
        directory.appendingPathComponent(fileName)
    }

    /// Reads the file in `directory`; a missing, unreadable or malformed file
    /// is a ``UsersFileError`` that names the file and the problem.
    public static func read(from directory: URL) throws(UsersFileError) -> UsersFile {
        let url = url(in: directory)
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            let reason = FileManager.default.fileExists(atPath: url.path) ? "cannot be read" : "does not exist"
            throw UsersFileError(path: url.path, problem: .unreadable(reason))
        }
        do {
            return try JSONDecoder().decode(UsersFile.self, from: data)
        } catch {
            throw UsersFileError(path: url.path, problem: .malformed(Self.explain(error)))
        }
    }

    /// Writes the file into `directory`, readable by its owner only (write to a
    /// temporary file, then rename: a reader never sees half a file).
    public func write(to directory: URL) throws {
        try ServerHost.writePrivately(try WireJSON.encode(self, prettyPrinted: true), to: Self.url(in: directory))
    }

    /// The web auth token of `user`, or `nil` when the file has no such user.
    public func webAuthToken(of user: String) -> String? {
        users.first(where: { $0.name == user })?.webAuthToken
    }

    /// The users' names, sorted (for messages).
    public var names: [String] { users.map(\.name).sorted() }

    /// A decoding error as a short phrase (where in the file, what was wrong).
    static func explain(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "it is not JSON" }
        func place(_ path: [any CodingKey]) -> String {
            let text = path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return text.isEmpty ? "the top level" : String(text.drop(while: { $0 == "." }))
        }
        switch error {
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            return "it is not JSON"
        case .dataCorrupted(let context):
            return "\(place(context.codingPath)) is not valid"
        case .keyNotFound(let key, let context):
            return "\(place(context.codingPath + [key])) is missing"
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            let expected = type == String.self ? "a string" : (type is any Collection.Type ? "a list" : "an object")
            return "\(place(context.codingPath)) should be \(expected)"
        @unknown default:
            return "it is not a users file"
        }
    }
}

/// `users.json` could not be used: names the file and says what is wrong with it.
public struct UsersFileError: Error, CustomStringConvertible, Sendable, Hashable {
    public enum Problem: Sendable, Hashable {
        /// Missing or unreadable: the phrase says which.
        case unreadable(String)
        /// Read, but not `{"users": [{"name", "webAuthToken"}]}`: the phrase says where.
        case malformed(String)
    }

    public var path: String
    public var problem: Problem

    public var description: String {
        switch problem {
        case .unreadable(let reason):
            return "\(path) \(reason)"
        case .malformed(let detail):
            return "\(path) is not a users file ({\"users\": [{\"name\": …, \"webAuthToken\": …}]}): \(detail)"
        }
    }
}
