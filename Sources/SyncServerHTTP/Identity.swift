/// Who is calling.
enum Identity: Equatable {
    case anonymous
    case user(String)
    /// The server admin credential.
    case serverAdmin

    var user: String? {
        if case .user(let name) = self { return name }
        return nil
    }
}
