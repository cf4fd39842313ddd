// swift-tools-version:6.1
import PackageDescription

/// The report catalog (Queries/*.sql) and the built-in line formats (Formats/Definitions) are
/// compiled into the binary by the EmbedFolders plugin, from whatever files those folders hold
/// (`.embedInCode` would need each file named here).
///
/// The ClickHouse dialect of the reports and its schema (Queries/clickhouse), linked as
/// Engine/ClickHouseQueries/ch-NAME.sql so their resource names differ from the SQLite reports'.
let clickhouseQueries = [
    "churn", "env-mismatch", "errors", "facts", "gone", "hygiene", "opt-out", "reconcile", "relations", "schema", "silent",
    "touched", "weekly",
]
/// The ClickHouse SQL of the commands besides `report` (tokens, trace, metrics; sources, rejects and schema
/// in listings), linked the same way.
let clickhouseCommands = ["listings", "metrics", "tokens", "trace"]
let embedded: [Resource] =
    clickhouseQueries.map { .embedInCode("Engine/ClickHouseQueries/ch-\($0).sql") }
    + clickhouseCommands.map { .embedInCode("Engine/ClickHouseQueries/ch-\($0).sql") }

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
            // Reports/Queries links to the repository's Queries/. The plugin reads the report
            // catalog and the line formats; the ClickHouse twins of the reports are resources.
            exclude: ["Reports/Queries", "Formats/Definitions"],
            resources: embedded,
            swiftSettings: [],
            plugins: ["EmbedFolders"]
        ),
        .executableTarget(name: "EmbedFiles", path: "Sources/EmbedFiles"),
        .plugin(name: "EmbedFolders", capability: .buildTool(), dependencies: ["EmbedFiles"]),
        .executableTarget(name: "pushlog", dependencies: ["PushLogKit"], path: "Sources/pushlog"),
        .testTarget(
            name: "PushLogKitTests",
            dependencies: ["PushLogKit", "pushlog"],
            path: "Tests/PushLogKitTests"
        ),
    ]
)
