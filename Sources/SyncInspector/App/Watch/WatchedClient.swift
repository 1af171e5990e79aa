/// One client of the watched server (an app instance), as its traffic shows it.
public struct WatchedClient: Sendable, Hashable {
    /// The feed's stable key for it.
    public var key: String
    /// Its short name (`alice · pyicloud`).
    public var name: String
    public var user: String
    public var requests: Int
    /// Requests answered with an error.
    public var errors: Int
    /// Pushes delivered to it.
    public var pushes: Int

    public init(key: String, name: String, user: String, requests: Int = 0, errors: Int = 0, pushes: Int = 0) {
        self.key = key
        self.name = name
        self.user = user
        self.requests = requests
        self.errors = errors
        self.pushes = pushes
    }
}
