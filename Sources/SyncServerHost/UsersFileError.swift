import Foundation
import SyncCore

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
