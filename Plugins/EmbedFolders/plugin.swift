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
        // The inputs are the folders and their files: a folder's own change (a file added,
        // removed or renamed) and a file's (edited in place, which leaves its folder as it was)
        // each bring the embedded copy up to date.
        let dirs = Self.folders.map { target.directoryURL.appending(path: $0.1) }
        let files = zip(Self.folders, dirs).flatMap { folder, dir in
            ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? [])
                .filter { $0.hasSuffix("." + folder.2) }.map { dir.appending(path: $0) }
        }
        let arguments = zip(Self.folders, dirs).flatMap { folder, dir in [folder.0, dir.path, folder.2] }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedFiles.swift")
        return [
            .buildCommand(
                displayName: "Embedding the report catalog and the line formats",
                executable: try context.tool(named: "EmbedFiles").url,
                arguments: [output.path] + arguments, inputFiles: dirs + files, outputFiles: [output])
        ]
    }
}
