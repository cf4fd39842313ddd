// swift-tools-version:5.9
import PackageDescription

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
            // Built-in line-format definitions, data files loaded like a user's (FormatLibrary).
            resources: [.copy("Formats/Definitions")],
            swiftSettings: [.unsafeFlags(["-Ounchecked"], .when(configuration: .release))]
        ),
        .executableTarget(name: "pushlog", dependencies: ["PushLogKit"], path: "Sources/pushlog"),
        .testTarget(
            name: "PushLogKitTests",
            dependencies: ["PushLogKit", "pushlog"],
            path: "Tests/PushLogKitTests"
        ),
    ]
)
