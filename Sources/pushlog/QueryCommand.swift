import Foundation
import PushLogKit

/// `pushlog query SQL` / `pushlog query -f FILE`
enum QueryCommand: Command {
    static let name = "query"
    static let summary = "Run read-only SQL against the database (same output formats as reports)."
    static let usage = "pushlog query [--format FMT] [-o FILE] [--reveal-tokens] (SQL | -f FILE)"
    static let optionTable = OptionTable(
        [
            .value("-f", placeholder: "FILE", help: "read the SQL from FILE (- for stdin)"),
            .value(
                "--format", placeholder: "FMT", help: "table, csv, tsv, json, ndjson, markdown, html (default: table on a",
                "terminal, tsv into a pipe or file)"),
            .flag("--reveal-tokens", help: "show device tokens in full (tokens are masked by value, in every cell)"),
        ],
        unlisted: OptionTable.output,
        notes: """
            Several statements separated by `;` each print their own section (result_1, result_2, …).

            Tables: sends (send/request/response records), registers, settings, receipts, unregisters,
            tokens, sources, rejects, apple_metrics and the dimensions they refer to by id (topics, envs,
            devices, …); views with the names joined back: sends_v, responses_v, registers_v, settings_v,
            receipts_v, unregisters_v (pushlog schema describes each column). Times are epoch
            milliseconds (time_ms); rfc3339(ms), time_ms('2026-11-12' or '-2h'), bucket(ms, 'day'),
            iso_week(ms), median(x), apns_text(apns_id) and pragma_table_info('sends') are available.

            """)

    /// Where the output goes and the SQL text: the positional words, or `-f FILE` (`-` for stdin).
    static func parse(_ argv: [String]) throws -> (OutputTarget, String) {
        let args = try Arguments(argv, command: name, table: optionTable)
        let out = try OutputTarget(args)
        if let f = args.value("-f") {
            if f == "-" { return (out, String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)) }
            guard let s = try? String(contentsOfFile: f, encoding: .utf8) else { throw CLIError("cannot read \(f)") }
            return (out, s)
        }
        guard !args.positionals.isEmpty else {
            throw UsageError(message: "query needs SQL or -f FILE", hint: "pushlog query 'SELECT count(*) FROM sends'")
        }
        return (out, args.positionals.joined(separator: " "))
    }

    static func run(_ argv: [String], _ ctx: Context) throws -> Int32 {
        let (out, sql) = try parse(argv)
        let trimmed = sql.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasPrefix(".") {
            let cmd = trimmed.split(separator: " ").first.map(String.init) ?? trimmed
            throw UsageError(
                message: "\(cmd) is a sqlite3 shell command, not SQL",
                hint: "pushlog schema lists the tables and their columns (pushlog schema TABLE for one)")
        }
        let engine = try CommandEngines.open(ctx, reads: .records)
        let sections: [ResultTable]
        do { sections = try engine.query(sql) } catch let e as QueryError { throw CLIError("query: \(e.message)") }
        guard !sections.isEmpty else {
            throw UsageError(
                message: "query has no SQL statement (only comments or blanks)", hint: "pushlog query 'SELECT count(*) FROM sends'")
        }
        try out.write(ResultDocument(report: "query", params: [("sql", .text(sql))], sections: sections), engine: engine)
        return 0
    }
}
