import SyncServerHost

/// Who is calling.
enum Identity: Equatable {
    case anonymous
    case user(String)
    /// The server admin credential.
    case serverAdmin
    /// A request signed with a server-to-server key (its ID); it acts as the key's user.
    case serverKey(String)

    var user: String? {
        switch self {
        case .user(let name): name
        case .serverKey(let keyID): ServerKeyRing.userName(ofKey: keyID)
        case .anonymous, .serverAdmin: nil
        }
    }
}
