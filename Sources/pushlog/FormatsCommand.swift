import Foundation
import PushLogKit

/// `pushlog formats` and `pushlog formats check FILE`
enum FormatsCommand: Command {
    static let name = "formats"
    static let summary = "List the input formats (built-in and user-defined) with a sample line, or check a definition file."
    static let usage = "pushlog formats [--formats DIR] [--format FMT] | pushlog formats check FILE"
    static let options = """
          check FILE       read a line-format definition and check its samples (exit 2 naming the line if bad)
          --formats DIR    also your line-format definitions (*.format; default $PUSHLOG_FORMATS)
          --format FMT     table, csv, tsv, json, ndjson, markdown, html

        """

    /// The user's folder of definitions: `--formats DIR`, else `$PUSHLOG_FORMATS`.
    static func userDirectory(_ args: Arguments) -> String? {
        args.value("--formats") ?? ProcessInfo.processInfo.environment["PUSHLOG_FORMATS"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Loads the built-in and the user's definitions; a bad definition is a usage error.
    static func library(_ args: Arguments) throws -> FormatLibrary {
        do {
            return try FormatLibrary.load(userDirectory: userDirectory(args))
        } catch let e as FormatDefinitionError {
            throw UsageError(
                message: "\(e)", hint: "pushlog formats check FILE explains a definition; see docs/formats.md, \"Formats you define\"")
        }
    }

    static func run(_ argv: [String], _ ctx: Context) throws -> Int32 {
        let args = try Arguments(argv, command: name, valued: OutputTarget.valued + ["--formats"], boolean: OutputTarget.boolean)
        if args.positionals.first == "check" {
            try args.allowPositionals(2, command: name)
            guard args.positionals.count == 2 else {
                throw UsageError(message: "formats check needs a FILE", hint: "pushlog formats check my-sender.format")
            }
            let file = args.positionals[1]
            do {
                let d = try LineDefinition.load(path: file)
                Console.out(
                    "\(file): ok — format '\(d.name)', \(d.samples.count) sample line\(d.samples.count == 1 ? "" : "s") read as records\n")
                return 0
            } catch let e as FormatDefinitionError {
                throw UsageError(message: "\(e)", hint: "fix the line named; docs/formats.md shows every directive")
            }
        }
        try args.allowPositionals(0, command: name)
        let lib = try library(args)
        let out = try OutputTarget(args)
        var t = ResultTable(name: "formats", columns: ["format", "kind", "description", "sample"])
        for f in FormatSamples.builtIn { t.rows.append([.text(f.name), .text("built-in"), .text(f.description), .text(f.sample)]) }
        for d in lib.definitions {
            t.rows.append([
                .text(d.name), .text(d.builtIn ? "definition" : "yours: \(d.file)"), .text(d.summary), .text(d.samples.first?.text ?? ""),
            ])
        }
        try out.write(ResultDocument(report: "formats", sections: [t]), db: nil)
        return 0
    }
}
