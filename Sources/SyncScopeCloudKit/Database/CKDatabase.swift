import Foundation
import SyncCore

/// One of a container's databases, as CloudKit's `CKDatabase`, with its async API.
///
/// Whole-request failures throw a ``CKError``; per-item failures come back in the results,
/// as CloudKit's do. Calls go to the container's back end as the container's signed-in user.
public final class CKDatabase: Sendable {
    /// The three kinds of database, with Apple's raw values.
    public enum Scope: Int, Sendable, Hashable {
        case `public` = 1
        case `private` = 2
        case shared = 3

        var serverScope: DatabaseScope {
            switch self {
            case .public: .public
            case .private: .private
            case .shared: .shared
            }
        }
    }

    public let databaseScope: Scope
    let container: CKContainer

    init(container: CKContainer, scope: Scope) {
        self.container = container
        databaseScope = scope
    }

    var scope: DatabaseScope { databaseScope.serverScope }

    /// The container's own device link.
    func link() throws(CKError) -> DeviceLink {
        do {
            let (connection, user) = try container.connection()
            return DeviceLink(connection: connection, user: user, backEnd: container.backEnd)
        } catch {
            throw CKError(converting: error, user: container.currentUser ?? "")
        }
    }

    /// Runs `body`, turning whatever it throws into a `CKError`.
    func run<T>(_ link: DeviceLink, _ body: () async throws -> T) async throws(CKError) -> T {
        link.backEnd.tick()
        do {
            return try await body()
        } catch {
            throw CKError(converting: error, user: link.user)
        }
    }
}

/// A device's connection and the user it acts as: what every database call goes through.
struct DeviceLink: Sendable {
    let connection: BackEndConnection
    let user: String
    let backEnd: SyncScopeBackEnd

    var service: any CloudService { connection.service }
}
