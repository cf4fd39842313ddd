// swift-tools-version:6.0
import PackageDescription

/// The report catalog (Reports/Queries links to the repository's Queries/) and the built-in line
/// formats, compiled into the binary (`.embedInCode`: the installed binary needs nothing beside
/// it). A new file is added here and to BuiltInQueries (a report) or BuiltInDefinitions (a
/// format); a test fails until both list it.
let queries = ["churn", "env-mismatch", "errors", "explain", "gone", "hygiene", "opt-out", "reconcile", "silent", "weekly"]
let formats = [
    "aioapns", "apns2", "bark-server", "mattermost-push-proxy", "parse-server", "pushy", "rpush", "sygnal",
]
/// The ClickHouse dialect of the reports and its schema (Queries/clickhouse), linked as
/// Engine/ClickHouseQueries/ch-NAME.sql so their resource names differ from the SQLite reports'.
let clickhouseQueries = [
    "churn", "env-mismatch", "errors", "facts", "gone", "hygiene", "opt-out", "reconcile", "relations", "schema", "silent",
    "touched", "weekly",
]
/// The ClickHouse SQL of the commands besides `report` (tokens, trace, metrics, rejects), linked the same way.
let clickhouseCommands = ["metrics", "rejects", "tokens", "trace"]
let embedded: [Resource] =
    queries.map { .embedInCode("Reports/Queries/\($0).sql") }
    + clickhouseQueries.map { .embedInCode("Engine/ClickHouseQueries/ch-\($0).sql") }
    + clickhouseCommands.map { .embedInCode("Engine/ClickHouseQueries/ch-\($0).sql") }
    + formats.map { .embedInCode("Formats/Definitions/\($0).format") }

let package = Package(
    name: "pushlog",
    products: [
        .executable(name: "pushlog", targets: ["pushlog"]),
        .library(name: "PushLogKit", targets: ["PushLogKit"]),
    ],
    targets: [
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", providers: [.apt(["zlib1g-dev"])]),
        .target(
            name: "PushLogKit",
            dependencies: ["CSQLite", "CZlib"],
            path: "Sources/PushLogKit",
            // The ClickHouse twins of the reports live beside them but are not part of the binary.
            exclude: ["Reports/Queries/clickhouse"],
            resources: embedded,
            swiftSettings: []
        ),
        .executableTarget(name: "pushlog", dependencies: ["PushLogKit"], path: "Sources/pushlog"),
        .testTarget(
            name: "PushLogKitTests",
            dependencies: ["PushLogKit", "pushlog"],
            path: "Tests/PushLogKitTests"
        ),
    ]
)
