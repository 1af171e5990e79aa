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

/// How the simulated server behaves.
public struct ServerSetup: Sendable, Equatable {
    /// The container every device uses when the file names none.
    public static let defaultContainer = "iCloud.com.example.SyncScope"
    /// Same as the push system's default: notifications for one device that
    /// arrive within this window merge into one.
    public static let defaultCoalescingWindowMs: Milliseconds = 200
    /// Same as the push system's default: time from a change to its push.
    public static let defaultPushLatencyMs: Milliseconds = 50

    /// Changes of history kept per zone and database log; tokens from before
    /// expire. `nil`: keep everything until a `compact` step.
    public var retention: Int?
    public var coalescingWindowMs: Milliseconds
    public var pushLatencyMs: Milliseconds
    /// The container identifier; `nil`: ``defaultContainer``.
    public var container: String?

    public init(
        retention: Int? = nil,
        coalescingWindowMs: Milliseconds = ServerSetup.defaultCoalescingWindowMs,
        pushLatencyMs: Milliseconds = ServerSetup.defaultPushLatencyMs,
        container: String? = nil
    ) {
        self.retention = retention
        self.coalescingWindowMs = coalescingWindowMs
        self.pushLatencyMs = pushLatencyMs
        self.container = container
    }
}

/// One device, signed in as one user.
public struct DeviceSetup: Sendable, Equatable {
    /// Where the device keeps its cache of records and tokens.
    public enum Store: String, Sendable, Equatable, CaseIterable {
        /// Lost when the run ends.
        case memory
        /// An SQLite database.
        case sqlite
    }

    public var name: String
    public var user: String
    public var store: Store
    /// Whether the device fetches changes as soon as a push arrives.
    public var autoFetchOnPush: Bool
    /// How its sync engine retries what failed for a passing reason (`retry: naive`).
    public var retry: RetryPolicy = .standard

    public init(name: String, user: String, store: Store = .memory, autoFetchOnPush: Bool = true) {
        self.name = name
        self.user = user
        self.store = store
        self.autoFetchOnPush = autoFetchOnPush
    }
}

/// Who performs a step that can be done by a device or, without a device, by a user.
public enum Principal: Sendable, Equatable {
    /// A declared device (and so its user).
    case device(String)
    /// A declared user, acting from no particular device.
    case user(String)
}

/// A zone as a scenario names it: `Notes`, or `Notes@alice` for a zone of
/// another user (a shared zone).
public struct ZoneRef: Sendable, Hashable, CustomStringConvertible {
    public var zoneName: String
    /// `nil`: the acting user's own zone — or, in the shared database, the
    /// one zone of that name shared with the acting user.
    public var ownerName: String?

    public init(_ zoneName: String, ownerName: String? = nil) {
        self.zoneName = zoneName
        self.ownerName = ownerName
    }

    /// The default zone, `_defaultZone`.
    public static let defaultZone = ZoneRef(RecordZoneID.defaultZoneName)

    /// The zone ID, taking `defaultOwner` when the scenario names no owner.
    public func zoneID(defaultOwner: String) -> RecordZoneID {
        RecordZoneID(zoneName: zoneName, ownerName: ownerName ?? defaultOwner)
    }

    public var description: String {
        ownerName.map { "\(zoneName)@\($0)" } ?? zoneName
    }
}

/// A place in a scenario file. Lines and columns start at 1; line 0 means
/// "the file as a whole".
public struct SourceLocation: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int

    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// `file:line:column`, or just `file` for the file as a whole.
    public var description: String {
        line > 0 ? "\(file):\(line):\(column)" : file
    }

    public static func < (lhs: SourceLocation, rhs: SourceLocation) -> Bool {
        (lhs.file, lhs.line, lhs.column) < (rhs.file, rhs.line, rhs.column)
    }
}
