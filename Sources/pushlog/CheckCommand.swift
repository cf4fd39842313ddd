import Foundation
import PushLogKit

/// `pushlog check`
enum CheckCommand: Command {
    static let name = "check"
    static let summary = "Check the database: SQLite's integrity check and pushlog's own invariants; exit 1 if damaged."
    static let usage = "pushlog check [--quick] [--quiet] [--sample N] [--format FMT] [-o FILE]"
    static let optionTable = OptionTable(
        [
            .flag("--quick", help: "SQLite's quick_check: every page, without comparing indexes with tables"),
            .flag("--quiet", help: "say nothing when the database is healthy (for cron)"),
            .value("--sample", placeholder: "N", help: "tokens whose derived facts are derived again and compared (default 1000)"),
            .value("--format", placeholder: "FMT", help: "the findings as table, csv, tsv, json, ndjson, markdown, html"),
            .value("-o", placeholder: "FILE", help: "write the findings to FILE (format from its extension)"),
        ],
        unlisted: OptionTable.output,
        notes: """

            Exit status: 0 healthy (stderr says what was checked), 1 damaged (the findings on stdout).
            Read-only: it runs beside an ingest, and on a copy in a folder you cannot write.

            """)

    static func run(_ argv: [String], _ ctx: Context) throws -> Int32 {
        let args = try Arguments(argv, command: name, table: optionTable)
        try args.allowPositionals(0, command: name)
        let out = try OutputTarget(args)
        let sample = try args.int("--sample", command: name) ?? 1000
        guard sample >= 0 else {
            throw UsageError(message: "--sample must be 0 or more, got \(sample)", hint: "pushlog check --sample 1000")
        }
        let (checked, findings) = try DatabaseCheck(path: ctx.dbPath, quick: args.has("--quick"), sampleTokens: sample).run()
        if findings.isEmpty {
            if !args.has("--quiet") { Console.err("pushlog: \(ctx.dbPath) is healthy (\(checked.joined(separator: "; ")))") }
            return 0
        }
        let table = ResultTable(
            name: "findings", columns: ["check", "finding"], rows: findings.map { [.text($0.check), .text($0.detail)] })
        try out.write(ResultDocument(report: "check", sections: [table]), db: nil, masked: false)
        Console.err(
            "pushlog: \(ctx.dbPath) is damaged: \(findings.count) finding\(findings.count == 1 ? "" : "s"). Restore it from a backup, "
                + "or rebuild it from the logs into a new file (docs/operations.md)")
        return 1
    }
}
