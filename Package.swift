// swift-tools-version: 6.1
import PackageDescription

// Declared from the bottom layer up: each target depends only on targets above it in this file.
//
//   SyncCore                      the model
//   SyncWire, SyncClient          the wire format; the client engine
//   SyncServer, SyncSQLiteStore,  the server engine; a device's SQLite cache; the HTTP client
//   SyncNetwork
//   SyncServerHost                the engine host: one lock, the route table, the storage boundary
//   SyncServerSQLite, SyncPostgres  its stores: a data folder in SQLite; a journal shared in PostgreSQL
//   SyncServerHTTP                `syncscope serve`'s HTTP adapter (Hummingbird), over the host
//   SyncScopeCloudKit             CloudKit's own client API (CKSyncEngine, CKDatabase, CKRecord) over either server
//   SyncScenario, SyncScopeAssets, SyncWorlds, SyncSimulation, SyncRemoteWorld, SyncScenarioRunner
//                                 scenario files, shipped files, worlds, running scenarios
//   SyncInspector, SyncInspectorWorlds
//                                 the inspector, and the in-process worlds it opens
//   syncscope, syncscope-bench    the user's tool; the benchmarks

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
]

let package = Package(
    name: "SyncScope",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "SyncCore", targets: ["SyncCore"]),
        .library(name: "SyncWire", targets: ["SyncWire"]),
        .library(name: "SyncClient", targets: ["SyncClient"]),
        .library(name: "SyncServer", targets: ["SyncServer"]),
        .library(name: "SyncSQLiteStore", targets: ["SyncSQLiteStore"]),
        .library(name: "SyncNetwork", targets: ["SyncNetwork"]),
        .library(name: "SyncDoctor", targets: ["SyncDoctor"]),
        .library(name: "SyncServerHost", targets: ["SyncServerHost"]),
        .library(name: "SyncServerSQLite", targets: ["SyncServerSQLite"]),
        .library(name: "SyncPostgres", targets: ["SyncPostgres"]),
        .library(name: "SyncServerHTTP", targets: ["SyncServerHTTP"]),
        .library(name: "SyncScopeCloudKit", targets: ["SyncScopeCloudKit"]),
        .executable(name: "syncscope", targets: ["syncscope"]),
        .executable(name: "syncscope-bench", targets: ["syncscope-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.25.0"),
    ],
    targets: [
        // MARK: The model

        // Records, zones, fields, change tokens, errors, the CloudService protocol, subscriptions and
        // notifications, push and fault values, clocks and seeded randomness. Links only Foundation.
        .target(name: "SyncCore", swiftSettings: swiftSettings),

        // MARK: Over the model

        // The wire format: the JSON parser and codec (WireJSON), JSONValue and the Wire* bodies of the
        // HTTP API. Links neither the server nor an HTTP library.
        .target(name: "SyncWire", dependencies: ["SyncCore"], swiftSettings: swiftSettings),
        // The client engine: DeviceSyncEngine, the fetch operations, the token cache, the LocalStore
        // protocol and its in-memory store. Talks to a server only through CloudService; links no server,
        // no HTTP and no SQLite.
        .target(name: "SyncClient", dependencies: ["SyncCore"], swiftSettings: swiftSettings),

        // MARK: Engines, stores and transports

        // The server engine: a synchronous, deterministic simulated CloudKit server (zones, change
        // histories, signed tokens, subscriptions, push, faults). Links neither SQLite nor HTTP.
        .target(
            name: "SyncServer",
            dependencies: ["SyncCore", "SyncWire", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        // A device's local cache in an SQLite file (GRDB): SQLiteLocalStore. The only client-side module
        // that links SQLite.
        .target(
            name: "SyncSQLiteStore",
            dependencies: ["SyncCore", "SyncClient", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: swiftSettings
        ),
        // The CloudService client over HTTP (URLSession) and a device's long-poll loop. Never links the server.
        .target(
            name: "SyncNetwork", dependencies: ["SyncCore", "SyncWire", .product(name: "Crypto", package: "swift-crypto")], swiftSettings: swiftSettings),
        // The sync doctor: names client mistakes from a server's event feed. A pure analyzer of feed
        // events (the wire shape); asks no server, links no HTTP.
        .target(name: "SyncDoctor", dependencies: ["SyncCore", "SyncWire"], swiftSettings: swiftSettings),
        // The engine host of `syncscope serve`: ServerHost (the engine under one lock, long-polls,
        // faults around the step), the dispatcher of CloudKit Web Services calls, the checkpoint
        // format, and the one storage boundary (ServerStore) with the stores that need no database:
        // memory only, and a node on a shared journal (SharedJournalStore) with its in-memory
        // double with faults (InMemorySharedJournal). Links neither SQLite nor PostgreSQL nor HTTP.
        .target(
            name: "SyncServerHost",
            dependencies: ["SyncCore", "SyncWire", "SyncServer", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        // A server's data folder: the journal in SQLite (GRDB), group commit, checkpoints, the
        // folder's lock. The only server module that links GRDB.
        .target(
            name: "SyncServerSQLite",
            dependencies: [
                "SyncCore", "SyncWire", "SyncServer", "SyncServerHost",
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's own calls, for the journal's inserts on the commit path.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        // The journal, checkpoints and push deliveries of several `syncscope serve` nodes in PostgreSQL:
        // opaque rows in one total order, LISTEN/NOTIFY when the tail moves (a SharedJournal for the
        // engine host). The only module that links PostgresNIO; it never looks inside a call.
        .target(
            name: "SyncPostgres",
            dependencies: [
                "SyncCore", "SyncWire", "SyncServerHost",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // `syncscope serve` over HTTP: CloudKit Web Services on Hummingbird, the checks around each call
        // and the connection guard, in front of the engine host (whatever its store). Links neither GRDB
        // nor PostgresNIO.
        .target(
            name: "SyncServerHTTP",
            dependencies: [
                "SyncCore", "SyncWire", "SyncServer", "SyncServerHost",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // The API reference ships inside the program (`syncscope help api`):
            // the same page DocC builds, not a copy.
            resources: [.copy("SyncServerHTTP.docc/WebServicesAPI.md")],
            swiftSettings: swiftSettings
        ),

        // MARK: The CloudKit twin

        // CloudKit's client API with CloudKit's names (CKContainer, CKDatabase, CKRecord, CKSyncEngine,
        // CKError), so a sync layer written for CloudKit compiles on Linux with only its import changed.
        // Its back end is an in-process server shared by every container with the same identifier, or a
        // running `syncscope serve` over HTTP; the test kit runs devices through seeded histories.
        .target(
            name: "SyncScopeCloudKit",
            dependencies: ["SyncCore", "SyncWire", "SyncServer", "SyncNetwork"],
            swiftSettings: swiftSettings
        ),

        // MARK: Scenarios and worlds

        // The scenario and lesson file format: model and parser. No runner, no server.
        .target(
            name: "SyncScenario",
            dependencies: ["SyncCore", "SyncClient", .product(name: "Yams", package: "Yams")],
            swiftSettings: swiftSettings
        ),
        // Lessons and the inspector's demo world, loaded at run time (Bundle.module). No code but AssetCatalog.
        .target(
            name: "SyncScopeAssets",
            path: "Assets",
            exclude: ["README.md"],
            resources: [.copy("lessons"), .copy("demo")],
            swiftSettings: swiftSettings
        ),
        // What a world is, whatever its server: SyncWorld (devices, their actions and events),
        // SyncDevice, ServerObserver (what the server holds, read), the demo writer. No server in it.
        .target(name: "SyncWorlds", dependencies: ["SyncCore", "SyncClient"], swiftSettings: swiftSettings),
        // The in-process world: Simulation (the simulated server, devices, a virtual clock, push
        // delivery) and InProcessServerObserver, which reads the engine directly. No HTTP.
        .target(
            name: "SyncSimulation",
            dependencies: ["SyncCore", "SyncClient", "SyncWorlds", "SyncServer", "SyncSQLiteStore"],
            swiftSettings: swiftSettings
        ),
        // The network world: one device on a running `syncscope serve` over HTTP (long-poll
        // push, an SQLite cache), and the server read through its HTTP API. Never links the server.
        .target(
            name: "SyncRemoteWorld",
            dependencies: ["SyncCore", "SyncClient", "SyncWorlds", "SyncNetwork", "SyncWire", "SyncSQLiteStore"],
            swiftSettings: swiftSettings
        ),
        // Runs scenarios and lessons on a simulation, step by step, checking their expectations and
        // writing their transcripts. No HTTP, no terminal.
        .target(
            name: "SyncScenarioRunner",
            dependencies: ["SyncScenario", "SyncSimulation", "SyncWorlds", "SyncCore", "SyncWire", "SyncClient", "SyncServer", "SyncScopeAssets"],
            swiftSettings: swiftSettings
        ),

        // MARK: The inspector

        .systemLibrary(
            name: "CNcurses",
            pkgConfig: "ncursesw",
            providers: [.apt(["libncurses-dev"])]
        ),
        // The inspector: state → update → view → cell buffer → a thin ncurses backend. It reads every
        // world through SyncWorld and its ServerObserver; it neither runs scenarios nor links the server.
        .target(
            name: "SyncInspector",
            dependencies: ["SyncCore", "SyncClient", "SyncWorlds", "CNcurses"],
            swiftSettings: swiftSettings
        ),
        // The in-process worlds the inspector opens, built on the server and the scenario runner: the
        // demo world and lessons (they reach the inspector through InspectorLesson and FaultInjectingWorld).
        .target(
            name: "SyncInspectorWorlds",
            dependencies: [
                "SyncInspector", "SyncCore", "SyncClient", "SyncWorlds", "SyncServer", "SyncSimulation", "SyncScenario", "SyncScenarioRunner",
                "SyncScopeAssets",
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: The programs

        // `syncscope`: the inspector, lessons, scenarios, `serve`, `client`, `device`, `explore`. Carries no
        // benchmarks.
        .executableTarget(
            name: "syncscope",
            dependencies: [
                "SyncCore", "SyncWire", "SyncServer", "SyncNetwork", "SyncServerHost", "SyncServerSQLite", "SyncServerHTTP", "SyncPostgres", "SyncWorlds",
                "SyncSimulation", "SyncRemoteWorld", "SyncDoctor",
                "SyncScenario", "SyncScenarioRunner", "SyncScopeAssets", "SyncInspector", "SyncInspectorWorlds",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: swiftSettings
        ),
        // `syncscope-bench` (`swift run -c release syncscope-bench`): the benchmarks, apart from the user's
        // tool. They run servers in process, a bare Hummingbird ceiling, a NIO load generator and, with
        // --nodes, `syncscope serve` processes on PostgreSQL.
        .executableTarget(
            name: "syncscope-bench",
            dependencies: [
                "SyncCore", "SyncWire", "SyncClient", "SyncServer", "SyncNetwork", "SyncServerHost", "SyncServerSQLite", "SyncServerHTTP", "SyncPostgres",
                "SyncWorlds",
                "SyncSimulation", "SyncInspector", "SyncInspectorWorlds",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Tests, in the same order

        // Test doubles and helpers more than one test target uses (a raw HTTP/1.1 client,
        // a throwaway PostgreSQL cluster, a .cast file reader).
        .target(name: "SyncTestSupport", path: "Tests/SyncTestSupport", swiftSettings: swiftSettings),
        .testTarget(name: "SyncCoreTests", dependencies: ["SyncCore"], swiftSettings: swiftSettings),
        .testTarget(name: "SyncWireTests", dependencies: ["SyncCore", "SyncWire"], swiftSettings: swiftSettings),
        // The client engine against the in-process server (and a device cache in SQLite).
        .testTarget(
            name: "SyncClientTests", dependencies: ["SyncCore", "SyncClient", "SyncServer", "SyncSQLiteStore"],
            swiftSettings: swiftSettings),
        .testTarget(name: "SyncServerTests", dependencies: ["SyncCore", "SyncWire", "SyncServer"], swiftSettings: swiftSettings),
        .testTarget(name: "SyncNetworkTests", dependencies: ["SyncNetwork", "SyncCore"], swiftSettings: swiftSettings),
        .testTarget(name: "SyncDoctorTests", dependencies: ["SyncDoctor", "SyncWire"], swiftSettings: swiftSettings),
        .testTarget(
            name: "SyncPostgresTests", dependencies: ["SyncPostgres", "SyncTestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "SyncServerHTTPTests",
            dependencies: [
                "SyncServerHost", "SyncServerSQLite", "SyncServerHTTP", "SyncPostgres", "SyncServer", "SyncNetwork", "SyncCore", "SyncWire",
                "SyncTestSupport", "SyncDoctor",
                .product(name: "GRDB", package: "GRDB.swift"),
                // To sign requests with server-to-server keys, as a back-end tool does.
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings),
        // The CloudKit twin: secure coding, CKDatabase on both back ends (the HTTP one on a `serve`
        // in this process), CKSyncEngine's events, and a contacts app's sync layer written as Apple's
        // CKSyncEngine sample writes its own, with the test kit over it.
        .testTarget(
            name: "SyncScopeCloudKitTests",
            dependencies: ["SyncScopeCloudKit", "SyncCore", "SyncServer", "SyncServerHost", "SyncServerSQLite", "SyncServerHTTP"],
            swiftSettings: swiftSettings),
        .testTarget(name: "SyncScenarioTests", dependencies: ["SyncScenario", "SyncCore", "SyncScopeAssets"], swiftSettings: swiftSettings),
        .testTarget(name: "SyncSimulationTests", dependencies: ["SyncSimulation", "SyncWorlds", "SyncRemoteWorld", "SyncCore", "SyncServer"], swiftSettings: swiftSettings),
        .testTarget(
            name: "SyncScenarioRunnerTests",
            dependencies: ["SyncScenarioRunner", "SyncScenario", "SyncSimulation", "SyncWorlds", "SyncCore", "SyncServer", "SyncScopeAssets"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "SyncInspectorTests",
            dependencies: [
                "SyncInspector", "SyncInspectorWorlds", "SyncCore", "SyncWorlds", "SyncServer", "SyncSimulation", "SyncScenario",
                "SyncScenarioRunner",
                "SyncScopeAssets", "SyncTestSupport",
            ],
            exclude: ["Goldens"],
            swiftSettings: swiftSettings),
        // Runs the built `syncscope` and `syncscope-bench` binaries as a person would.
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "syncscope", "syncscope-bench", "SyncCore", "SyncClient", "SyncNetwork", "SyncWorlds", "SyncSimulation", "SyncRemoteWorld",
                "SyncTestSupport",
                // To take a stopped server's data folder apart as a damaged disk would.
                .product(name: "GRDB", package: "GRDB.swift"),
                // To make a server-to-server key pair for `serve --server-key` and `client --key-id`.
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            exclude: ["Goldens", "PyiCloud"],
            swiftSettings: swiftSettings),
    ]
)
