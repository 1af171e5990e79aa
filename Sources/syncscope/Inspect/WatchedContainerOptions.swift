import ArgumentParser
import SyncCore
import SyncScenario

/// `inspect --server`'s container and environment: whose zones and records
/// the inspector reads (clients using other containers still show, their
/// fetches named by container in the token history).
struct WatchedContainerOptions: ParsableArguments {
    @Option(help: "The container whose zones and records to show (default: \(ServerSetup.defaultContainer)).")
    var container: String?

    @Option(help: "The container's environment (production: what was deployed; default: development).")
    var environment: ContainerEnvironment?

    /// Whether either option was given.
    var isGiven: Bool { container != nil || environment != nil }

    var watchedContainer: String { container ?? ServerSetup.defaultContainer }
    var watchedEnvironment: ContainerEnvironment { environment ?? .development }
}
