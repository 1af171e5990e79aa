import SyncCore

/// A container and environment a device is registered for.
struct PushContainer: Hashable {
    var container: String
    var environment: ContainerEnvironment
}
