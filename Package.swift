// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Sluice",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "sluice", targets: ["sluice"]),
        .library(name: "SluiceEngine", targets: ["SluiceEngine"]),
        // Background sessions (`BackgroundSession`) and the daemon's client, for programs that hand work to it.
        .library(name: "SluiceDaemon", targets: ["SluiceDaemon"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // libcurl for Swift: typed wrappers around the variadic setopt/getinfo calls.
        .target(
            name: "CCurl",
            linkerSettings: [.linkedLibrary("curl")]
        ),
        // The one lock type (a pthread mutex, which ThreadSanitizer sees), for every module that locks.
        .target(name: "SluiceLock"),
        // The URLSession-style engine on libcurl's multi interface.
        .target(
            name: "SluiceEngine",
            dependencies: ["CCurl", "SluiceLock"]
        ),
        // The engine's events reduced to plain UI state: rows, rates, timelines, selection, sort, filter.
        .target(
            name: "SluiceViewModel",
            dependencies: ["SluiceEngine"]
        ),
        // ncursesw for Swift: the calls the UI makes, which load the library when the screen first starts (shim.c),
        // not at every start, and wrappers for the macros Swift cannot import.
        .target(
            name: "CNcurses",
            linkerSettings: [.linkedLibrary("dl")]
        ),
        // mallopt for the command-line tool (see MallocTuning.swift).
        .target(name: "CMalloc"),
        // posix_spawn's close-from for the programs sluice starts (see SpawnedDescriptors.swift).
        .target(name: "CSpawn"),
        // The terminal UI: a pure renderer and key handler, themes, and the one file that calls curses.
        .target(
            name: "SluiceTUI",
            dependencies: ["SluiceViewModel", "SluiceEngine", "SluiceStore", "SluiceLock", "CNcurses", "CSpawn"]
        ),
        // A misbehaving-on-purpose HTTP server on 127.0.0.1 for tests and `sluice demo`.
        .target(
            name: "SluiceScenarioServer",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        // The system's libsqlite3 for Swift: its header, the one macro Swift cannot import, and the functions
        // Sluice calls, which load the library when a store is first opened (shim.c), not at every start.
        .target(
            name: "CSQLite",
            linkerSettings: [.linkedLibrary("dl")]
        ),
        // The durable store of tasks and their history: SQLite through a thin wrapper, in WAL mode, writes batched.
        .target(
            name: "SluiceStore",
            dependencies: ["CSQLite", "SluiceLock"]
        ),
        // The background daemon: one TransferApp with no screen, served as HTTP/1.1 + JSON on a Unix socket.
        .target(
            name: "SluiceDaemon",
            dependencies: [
                "SluiceEngine",
                "SluiceViewModel",
                "SluiceTUI",
                "SluiceStore",
                "SluiceLock",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Command-line pieces that are worth testing without a process: trace encoding, options.
        .target(
            name: "SluiceCLI",
            dependencies: [
                "CMalloc",
                "SluiceEngine",
                "SluiceViewModel",
                "SluiceTUI",
                "SluiceScenarioServer",
                "SluiceStore",
                "SluiceDaemon",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "sluice",
            dependencies: ["SluiceCLI"]
        ),
        // Micro-benchmarks of the view-model and renderer (run in release; not part of `swift test`).
        .executableTarget(
            name: "sluice-ui-bench",
            dependencies: ["SluiceTUI", "SluiceViewModel", "SluiceEngine"],
            path: "Benchmarks/UIBench"
        ),
        // The 10,000-task soak of one Session against the scenario server (run in release by Benchmarks/soak).
        .executableTarget(
            name: "sluice-soak",
            dependencies: ["SluiceEngine", "SluiceScenarioServer"],
            path: "Benchmarks/Soak"
        ),
        .testTarget(
            name: "SluiceEngineTests",
            dependencies: ["SluiceEngine", "SluiceScenarioServer", "SluiceLock"]
        ),
        .testTarget(
            name: "SluiceCLITests",
            dependencies: ["SluiceCLI", "SluiceEngine", "SluiceViewModel", "SluiceScenarioServer", "SluiceStore", "SluiceTUI", "SluiceLock"]
        ),
        // A process that writes to a store until it is killed, for the crash test (run by SluiceStoreTests).
        .executableTarget(
            name: "sluice-store-child",
            dependencies: ["SluiceStore"],
            path: "Tests/StoreChild"
        ),
        .testTarget(
            name: "SluiceStoreTests",
            dependencies: ["SluiceStore", "sluice-store-child", "SluiceLock"]
        ),
        // Start the real `sluice` binary as a daemon on a scratch runtime directory and drive it through its socket.
        .testTarget(
            name: "SluiceDaemonTests",
            dependencies: ["SluiceDaemon", "SluiceTUI", "SluiceScenarioServer", "SluiceLock"]
        ),
        .testTarget(
            name: "SluiceTUITests",
            dependencies: ["SluiceTUI", "SluiceViewModel", "SluiceEngine", "SluiceLock"],
            exclude: ["Snapshots"]  // text fixtures read by path
        ),
        .testTarget(
            name: "SluiceViewModelTests",
            dependencies: ["SluiceViewModel", "SluiceEngine", "SluiceLock"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
