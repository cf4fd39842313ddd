// swift-tools-version:5.9
import Foundation
import PackageDescription

/// Files of a folder of the PushLogKit target with an extension, as resources compiled into the
/// binary (`.embedInCode`: the installed binary needs nothing beside it).
func embedded(_ folder: String, _ ext: String) -> [Resource] {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Sources/PushLogKit")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)) ?? []
    return names.filter { $0.hasSuffix("." + ext) }.sorted().map { .embedInCode(folder + "/" + $0) }
}

/// The other entries of that folder (the ClickHouse reports beside the catalog), left out of the target.
func others(_ folder: String, _ ext: String) -> [String] {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Sources/PushLogKit")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)) ?? []
    return names.filter { !$0.hasSuffix("." + ext) }.sorted().map { folder + "/" + $0 }
}

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
            // Reports/Queries is a link to the repository's Queries/ (the catalog); the ClickHouse
            // reports there are not part of the binary. Formats/Definitions: the built-in line
            // formats, data files loaded like a user's (FormatLibrary).
            exclude: others("Reports/Queries", "sql"),
            resources: embedded("Reports/Queries", "sql") + embedded("Formats/Definitions", "format"),
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
