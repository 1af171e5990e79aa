// swift-tools-version: 6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("NonisolatedNonsendingByDefault"),
]

let package = Package(
    name: "SyncScope",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "syncscope", targets: ["syncscope"]),
        .library(name: "SyncCore", targets: ["SyncCore"]),
        .library(name: "SyncSQLiteStore", targets: ["SyncSQLiteStore"]),
        .library(name: "SyncServer", targets: ["SyncServer"]),
        .library(name: "SyncNetwork", targets: ["SyncNetwork"]),
        .library(name: "SyncServerHost", targets: ["SyncServerHost"]),
        .library(name: "SyncServerSQLite", targets: ["SyncServerSQLite"]),
        .library(name: "SyncServerHTTP", targets: ["SyncServerHTTP"]),
        .library(name: "SyncPostgres", targets: ["SyncPostgres"]),
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
        .target(name: "SyncCore", swiftSettings: swiftSettings),
        // A device's local cache in an SQLite file (GRDB); the core and the server engine do not link SQLite.
        .target(
            name: "SyncSQLiteStore",
            dependencies: ["SyncCore", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "SyncServer",
            dependencies: ["SyncCore", .product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: swiftSettings
        ),
        // The scenario and lesson file format: model and parser (no runner).
        .target(
            name: "SyncScenario",
            dependencies: ["SyncCore", .product(name: "Yams", package: "Yams")],
            swiftSettings: swiftSettings
        ),
        // Lessons and the inspector's demo world, loaded at run time (Bundle.module).
        .target(
            name: "SyncScopeAssets",
            path: "Assets",
            exclude: ["README.md"],
            resources: [.copy("lessons"), .copy("demo")],
            swiftSettings: swiftSettings
        ),
        // What a world is, whatever its server: SyncWorld (devices, their actions and events),
        // SyncDevice, ServerObserver (what the server holds, read), the demo writer. No server in it.
        .target(name: "SyncWorlds", dependencies: ["SyncCore"], swiftSettings: swiftSettings),
        // The in-process world: Simulation (the simulated server, devices, a virtual clock, push
        // delivery) and InProcessServerObserver, which reads the engine directly.
        .target(
            name: "SyncSimulation",
            dependencies: ["SyncCore", "SyncWorlds", "SyncServer", "SyncSQLiteStore"],
            swiftSettings: swiftSettings
        ),
        // The network world: one device on a running `syncscope serve` over HTTP (long-poll
        // push, an SQLite cache), and the server read through its HTTP API. Never links the server.
        .target(
            name: "SyncRemoteWorld",
            dependencies: ["SyncCore", "SyncWorlds", "SyncNetwork", "SyncSQLiteStore"],
            swiftSettings: swiftSettings
        ),
        // The CloudService client over HTTP (URLSession); never links the server.
        .target(name: "SyncNetwork", dependencies: ["SyncCore"], swiftSettings: swiftSettings),
        // The engine host of `syncscope serve`: ServerHost (the engine under one lock, long-polls,
        // faults around the step), the dispatcher of CloudKit Web Services calls, the checkpoint
        // format, and the one storage boundary (ServerStore) with the stores that need no database:
        // memory only, and a node on a shared journal (SharedJournalStore) with its in-memory
        // double with faults (InMemorySharedJournal). Links neither SQLite nor PostgreSQL nor HTTP.
        .target(
            name: "SyncServerHost",
            dependencies: ["SyncCore", "SyncServer"],
            swiftSettings: swiftSettings
        ),
        // A server's data folder: the journal in SQLite (GRDB), group commit, checkpoints, the
        // folder's lock. The only server module that links GRDB.
        .target(
            name: "SyncServerSQLite",
            dependencies: [
                "SyncCore", "SyncServer", "SyncServerHost",
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's own calls, for the journal's inserts on the commit path.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),
        // `syncscope serve` over HTTP: the Hummingbird server, its checks around each call and the
        // connection guard, in front of the engine host (whatever its store).
        .target(
            name: "SyncServerHTTP",
            dependencies: [
                "SyncCore", "SyncServer", "SyncServerHost",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // The server's journal, checkpoints and push deliveries in PostgreSQL, shared by several
        // `syncscope serve` nodes: opaque rows in one total order, LISTEN/NOTIFY when the tail moves
        // (a SharedJournal for the engine host). The only module that links PostgresNIO.
        .target(
            name: "SyncPostgres",
            dependencies: [
                "SyncCore", "SyncServerHost",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // Runs scenarios and lessons on a simulation, step by step, checking their expectations.
        .target(
            name: "SyncScenarioRunner",
            dependencies: ["SyncScenario", "SyncSimulation", "SyncWorlds", "SyncCore", "SyncServer", "SyncScopeAssets"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "syncscope",
            dependencies: [
                "SyncCore", "SyncServer", "SyncNetwork", "SyncServerHost", "SyncServerSQLite", "SyncServerHTTP", "SyncPostgres", "SyncWorlds", "SyncSimulation", "SyncRemoteWorld",
                "SyncScenario", "SyncScenarioRunner", "SyncScopeAssets", "SyncInspector", "SyncInspectorWorlds",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: swiftSettings
        ),
        .systemLibrary(
            name: "CNcurses",
            pkgConfig: "ncursesw",
            providers: [.apt(["libncurses-dev"])]
        ),
        // The inspector: state → update → view → cell buffer → a thin ncurses backend. It reads every
        // world through SyncWorld and its ServerObserver; it neither runs scenarios nor links the server.
        .target(
            name: "SyncInspector",
            dependencies: ["SyncCore", "SyncWorlds", "CNcurses"],
            swiftSettings: swiftSettings
        ),
        // The in-process worlds the inspector opens, built on the server and the scenario runner: the
        // demo world and lessons (they reach the inspector through InspectorLesson and FaultInjectingWorld).
        .target(
            name: "SyncInspectorWorlds",
            dependencies: [
                "SyncInspector", "SyncCore", "SyncWorlds", "SyncServer", "SyncSimulation", "SyncScenario", "SyncScenarioRunner",
                "SyncScopeAssets",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "SyncCoreTests", dependencies: ["SyncCore", "SyncServer", "SyncSQLiteStore"], swiftSettings: swiftSettings),
        .testTarget(name: "SyncServerTests", dependencies: ["SyncCore", "SyncServer"], swiftSettings: swiftSettings),
        .testTarget(
            name: "SyncInspectorTests",
            dependencies: [
                "SyncInspector", "SyncInspectorWorlds", "SyncCore", "SyncWorlds", "SyncServer", "SyncSimulation", "SyncScenario",
                "SyncScenarioRunner",
                "SyncScopeAssets", "SyncTestSupport",
            ],
            exclude: ["Goldens"],
            swiftSettings: swiftSettings),
        .testTarget(name: "SyncSimulationTests", dependencies: ["SyncSimulation", "SyncWorlds", "SyncRemoteWorld", "SyncCore", "SyncServer"], swiftSettings: swiftSettings),
        .testTarget(name: "SyncScenarioTests", dependencies: ["SyncScenario", "SyncCore", "SyncScopeAssets"], swiftSettings: swiftSettings),
        .testTarget(
            name: "SyncScenarioRunnerTests",
            dependencies: ["SyncScenarioRunner", "SyncScenario", "SyncSimulation", "SyncWorlds", "SyncCore", "SyncServer", "SyncScopeAssets"],
            swiftSettings: swiftSettings),
        // Test doubles and helpers more than one test target uses (a raw HTTP/1.1 client,
        // a throwaway PostgreSQL cluster, a .cast file reader).
        .target(name: "SyncTestSupport", path: "Tests/SyncTestSupport", swiftSettings: swiftSettings),
        // Runs the built `syncscope` binary as a person would.
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "syncscope", "SyncCore", "SyncNetwork", "SyncWorlds", "SyncSimulation", "SyncRemoteWorld", "SyncTestSupport",
                // To take a stopped server's data folder apart as a damaged disk would.
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            exclude: ["Goldens", "PyiCloud"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "SyncServerHTTPTests",
            dependencies: [
                "SyncServerHost", "SyncServerSQLite", "SyncServerHTTP", "SyncPostgres", "SyncServer", "SyncNetwork", "SyncCore", "SyncTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "SyncPostgresTests", dependencies: ["SyncPostgres", "SyncTestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(name: "SyncNetworkTests", dependencies: ["SyncNetwork", "SyncCore"], swiftSettings: swiftSettings),
    ]
)
