import Foundation

/// The line-format definitions an ingest can use: the built-in ones (data files compiled into
/// the binary, `Formats/Definitions/*.format`) and a user's (`--formats DIR`,
/// `$PUSHLOG_FORMATS`). Detection tries them after the built-in formats.
public struct FormatLibrary: Sendable {
    public private(set) var definitions: [LineDefinition] = []

    public init() {}

    /// The built-in definitions and, when given, those of `userDirectory` (a user's definition
    /// replaces a built-in one of the same name). Throws the first bad definition.
    public static func load(userDirectory: String? = nil) throws -> FormatLibrary {
        var lib = FormatLibrary()
        for (name, text) in BuiltInDefinitions.files.sorted(by: { $0.key < $1.key }) {
            try lib.add(LineDefinition.parse(text, file: "built-in \(name).format", builtIn: true))
        }
        if let dir = userDirectory {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDir), isDir.boolValue else {
                throw FormatDefinitionError(file: dir, line: 0, message: "no such folder of format definitions")
            }
            try lib.add(directory: dir, builtIn: false)
        }
        return lib
    }

    /// Adds every `*.format` file of a folder, in name order.
    mutating func add(directory: String, builtIn: Bool) throws {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for n in names.sorted() where n.hasSuffix(".format") {
            try add(LineDefinition.load(path: directory + "/" + n, builtIn: builtIn))
        }
    }

    mutating func add(_ d: LineDefinition) throws {
        if FormatDetector.names.contains(d.name) || d.name == "sns-document" {
            throw FormatDefinitionError(file: d.file, line: 1, message: "'\(d.name)' is the name of a built-in format; choose another")
        }
        if let i = definitions.firstIndex(where: { $0.name == d.name }) {
            guard definitions[i].builtIn && !d.builtIn else {
                throw FormatDefinitionError(file: d.file, line: 1, message: "format '\(d.name)' is also defined in \(definitions[i].file)")
            }
            definitions[i] = d
        } else {
            definitions.append(d)
        }
    }

    func definition(_ name: String) -> LineDefinition? { definitions.first { $0.name == name } }
    public var names: [String] { definitions.map(\.name) }
}
