import SyncCore

/// Another iCloud account signs in on a device. The device keeps its local
/// cache (records, tokens, pending changes): they belong to the previous
/// account until the app notices (``StepKind/checkAccount(device:)``).
public struct SignInAction: Sendable, Equatable {
    public var device: String
    /// The user who signs in.
    public var user: String

    public init(device: String, user: String) {
        self.device = device
        self.user = user
    }
}
