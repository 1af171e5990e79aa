import Foundation
import Synchronization
import SyncCore

/// An app's CloudKit container, as CloudKit's `CKContainer`: its three databases and the
/// signed-in user.
///
/// Every container with the same identifier in a process shares one back end
/// (``SyncScopeBackEnd``): by default an in-process SyncScope server. Each container is one
/// device of the signed-in user; each ``CKSyncEngine`` is a device of its own.
public final class CKContainer: Sendable {
    public let containerIdentifier: String?
    /// Where this container's databases live (SyncScope's).
    public let backEnd: SyncScopeBackEnd
    private let account: Mutex<String?>
    private let accountObservers = Mutex<[UUID: @Sendable () -> Void]>([:])

    public init(identifier: String) {
        containerIdentifier = identifier
        backEnd = SyncScopeBackEnd.forContainer(identifier)
        account = Mutex(backEnd.defaultUser)
    }

    /// The app's default container (`SYNCSCOPE_CONTAINER`, else `iCloud.com.example.SyncScope`).
    public static func `default`() -> CKContainer {
        CKContainer(identifier: ProcessInfo.processInfo.environment["SYNCSCOPE_CONTAINER"] ?? "iCloud.com.example.SyncScope")
    }

    public var privateCloudDatabase: CKDatabase { CKDatabase(container: self, scope: .private) }
    public var sharedCloudDatabase: CKDatabase { CKDatabase(container: self, scope: .shared) }
    public var publicCloudDatabase: CKDatabase { CKDatabase(container: self, scope: .public) }

    public func database(with databaseScope: CKDatabase.Scope) -> CKDatabase {
        CKDatabase(container: self, scope: databaseScope)
    }

    public func accountStatus() async throws -> CKAccountStatus {
        currentUser == nil ? .noAccount : .available
    }

    /// The signed-in user's record ID.
    public func userRecordID() async throws -> CKRecord.ID {
        guard let user = currentUser else { throw Self.notSignedIn }
        return CKRecord.ID(recordName: user)
    }

    // MARK: The account (SyncScope's: a test signs a device in and out)

    /// The user signed in on this device; `nil`: nobody.
    public var currentUser: String? { account.withLock { $0 } }

    /// Signs this device in as `user` (`nil`: signs out). Sync engines on this container see
    /// an account change the next time they sync.
    public func signIn(_ user: String?) {
        let changed = account.withLock { (current: inout String?) -> Bool in
            defer { current = user }
            return current != user
        }
        guard changed else { return }
        for observer in accountObservers.withLock({ Array($0.values) }) { observer() }
    }

    func observeAccount(_ id: UUID, _ observer: (@Sendable () -> Void)?) {
        accountObservers.withLock { $0[id] = observer }
    }

    static let notSignedIn = CKError(.notAuthenticated, userInfo: [NSLocalizedDescriptionKey: "No iCloud account is signed in on this device."])

    /// A connection for the signed-in user from `deviceID` (none: no device in particular).
    func connection(deviceID: String? = nil) throws -> (BackEndConnection, user: String) {
        guard let user = currentUser, let identifier = containerIdentifier else { throw Self.notSignedIn }
        return (try backEnd.connect(user: user, deviceID: deviceID, container: identifier), user)
    }
}
