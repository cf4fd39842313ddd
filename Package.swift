// swift-tools-version:6.1
import PackageDescription

/// The report catalog (Queries/*.sql), its ClickHouse SQL (Queries/clickhouse) and the built-in
/// line formats (Formats/Definitions) are compiled into the binary by the EmbedFolders plugin, from
/// whatever files those folders hold (`.embedInCode` would need each file named here).
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
            // Reports/Queries links to the repository's Queries/; the plugin reads it and the
            // line formats.
            exclude: ["Reports/Queries", "Formats/Definitions"],
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
