import SyncCore
import SyncClient

/// A scenario: who takes part (users, devices, subscriptions), how the
/// simulated server behaves, and the steps to run, in order.
///
/// A scenario with narrative (``StepKind/say(_:)``) steps is a *lesson*. The
/// same value runs headless and in the inspector: it describes what happens,
/// never how it is shown. See <doc:ScenarioFormat> for the file format.
public struct Scenario: Sendable, Equatable {
    /// A short identifier, for example `first-fetch`; the file's name without
    /// its extension when the file gives none.
    public var name: String
    /// A one-line title for people.
    public var title: String?
    /// A paragraph saying what the scenario shows.
    public var summary: String?
    /// Seeds every random choice of the run: the same seed gives the same transcript.
    public var seed: UInt64
    public var server: ServerSetup
    /// The users, in the order the file declares them (or, when the file has
    /// no `users:` list, in the order its devices name them).
    public var users: [String]
    public var devices: [DeviceSetup]
    /// Subscriptions that exist before the first step.
    public var subscriptions: [SubscriptionSetup]
    public var steps: [Step]
    /// Fault rules in force from the first step (`faults:`); see `FaultSetup.swift`.
    public var faults = FaultPlan()
    /// Problems that do not stop the scenario from running, such as a zone
    /// that no step creates. Errors are thrown as ``ScenarioFileError`` instead.
    public var warnings: [ScenarioDiagnostic]

    public init(
        name: String,
        title: String? = nil,
        summary: String? = nil,
        seed: UInt64 = 1,
        server: ServerSetup = ServerSetup(),
        users: [String] = [],
        devices: [DeviceSetup] = [],
        subscriptions: [SubscriptionSetup] = [],
        steps: [Step] = [],
        warnings: [ScenarioDiagnostic] = []
    ) {
        self.name = name
        self.title = title
        self.summary = summary
        self.seed = seed
        self.server = server
        self.users = users
        self.devices = devices
        self.subscriptions = subscriptions
        self.steps = steps
        self.warnings = warnings
    }

    /// Whether this scenario tells a story: it has at least one `say` step.
    public var isLesson: Bool {
        steps.contains { if case .say = $0.kind { true } else { false } }
    }

    /// The device with this name, if the scenario declares it.
    public func device(named name: String) -> DeviceSetup? {
        devices.first { $0.name == name }
    }

    /// The user who acts: the user itself, or the user a device signs in as.
    public func userName(of principal: Principal) -> String? {
        switch principal {
        case .user(let name): users.contains(name) ? name : nil
        case .device(let name): device(named: name)?.user
        }
    }
}
