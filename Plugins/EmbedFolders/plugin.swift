import Foundation
import PackagePlugin

/// Compiles the report catalog, its ClickHouse SQL and the built-in line formats into PushLogKit: every file of their
/// folders, found when the package builds, so adding a report or a format is adding its file.
@main
struct EmbedFolders: BuildToolPlugin {
    /// (the enum that holds them, the folder in the target, the files' extension)
    static let folders = [
        ("BuiltInQueries", "Reports/Queries", "sql"), ("ClickHouseSQL", "Reports/Queries/clickhouse", "sql"),
        ("BuiltInDefinitions", "Formats/Definitions", "format"),
    ]

    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        // The folders are the inputs, not their files: the build then watches each folder's
        // whole tree, so a file added, changed or removed brings the embedded copy up to date
        // (a list of files would be planned once and miss the next file).
        let dirs = Self.folders.map { target.directoryURL.appending(path: $0.1) }
        let arguments = zip(Self.folders, dirs).flatMap { folder, dir in [folder.0, dir.path, folder.2] }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedFiles.swift")
        return [
            .buildCommand(
                displayName: "Embedding the report catalog and the line formats",
                executable: try context.tool(named: "EmbedFiles").url,
                arguments: [output.path] + arguments, inputFiles: dirs, outputFiles: [output])
        ]
    }
}
