import Foundation
import PushLogKit

/// `pushlog formats` and `pushlog formats check FILE`
enum FormatsCommand: Command {
    static let name = "formats"
    static let summary = "List the input formats (built-in and user-defined) with a sample line, or check a definition file."
    static let usage =
        "pushlog formats [--formats DIR] [--format FMT] | pushlog formats check FILE | pushlog formats draft LOG [--name NAME]"
    static let optionTable = OptionTable(
        [
            .positional("check FILE", help: "read a line-format definition and check its samples (exit 2 naming the line if bad)"),
            .positional("draft LOG", help: "propose a definition for a log in no known shape, from its first 1,000 lines (stdout)"),
            .value("--name", placeholder: "NAME", help: "the drafted format's name (default: from the log's file name)"),
            .value("--formats", placeholder: "DIR", help: "also your line-format definitions (*.format; default $PUSHLOG_FORMATS)"),
            .value("--format", placeholder: "FMT", help: "table, csv, tsv, json, ndjson, markdown, html"),
        ],
        unlisted: OptionTable.output)

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
        let args = try Arguments(
            argv, command: name, valued: OutputTarget.valued + ["--formats", "--name"], boolean: OutputTarget.boolean)
        if args.positionals.first == "draft" { return try draft(args) }
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
        // The samples are pushlog's own lines with made-up tokens: shown whole, so each can be
        // pasted into `pushlog ingest -` to try.
        try out.write(ResultDocument(report: "formats", sections: [t]), db: nil, masked: false)
        return 0
    }

    /// `formats draft LOG`: a definition drafted from the log's lines, on stdout.
    static func draft(_ args: Arguments) throws -> Int32 {
        try args.allowPositionals(2, command: name)
        guard args.positionals.count == 2 else {
            throw UsageError(message: "formats draft needs a LOG file", hint: "pushlog formats draft sender.log > sender.format")
        }
        let path = args.positionals[1]
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageError(message: "cannot read \(path)", hint: "formats draft reads a plain-text log")
        }
        let lines = String(decoding: data.prefix(4 << 20), as: UTF8.self).split(separator: "\n").prefix(1000).map(String.init)
        let base = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent.lowercased()
        var draftName = args.value("--name") ?? String(base.map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "-" })
        let taken = try library(args).names
        if draftName.isEmpty || FormatDetector.names.contains(draftName) || taken.contains(draftName) {
            draftName = "drafted-" + draftName
        }
        guard let text = FormatDraft.draft(lines: lines, name: draftName, source: URL(fileURLWithPath: path).lastPathComponent) else {
            Console.err(
                "pushlog: no line of \(path) names a device token or an apns-id with a status or an APNs reason; nothing to draft\n")
            return 1
        }
        Console.out(text)
        return 0
    }
}
