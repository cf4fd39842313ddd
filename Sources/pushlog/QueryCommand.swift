import Foundation
import PushLogKit

/// `pushlog query SQL` / `pushlog query -f FILE`
enum QueryCommand: Command {
    static let name = "query"
    static let summary = "Run read-only SQL against the database (same output formats as reports)."
    static let usage = "pushlog query [--format FMT] [-o FILE] [--reveal-tokens] (SQL | -f FILE)"
    static let options = """
      -f FILE          read the SQL from FILE (- for stdin)
      --format FMT     table, csv, tsv, json, ndjson, markdown, html (default: table on a
                       terminal, tsv into a pipe or file)
      --reveal-tokens  show device tokens in full (columns named token are masked by default)

    Tables: sends (send/request/response records), registers, settings, receipts, unregisters,
    tokens, sources, rejects, apple_metrics, reasons, categories. Times are epoch milliseconds;
    rfc3339(t), bucket(t, 'day'), iso_week(t) and median(x) are available.

    """

    static func run(_ argv: [String], _ ctx: Context) throws -> Int32 {
        let args = try Arguments(argv, command: name, valued: OutputTarget.valued + ["-f"], boolean: OutputTarget.boolean)
        let out = try OutputTarget(args)
        var sql: String
        if let f = args.value("-f") {
            if f == "-" {
                sql = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            } else {
                guard let s = try? String(contentsOfFile: f, encoding: .utf8) else { throw CLIError("cannot read \(f)") }
                sql = s
            }
        } else {
            guard !args.positionals.isEmpty else {
                throw UsageError(message: "query needs SQL or -f FILE", hint: "pushlog query 'SELECT count(*) FROM sends'")
            }
            sql = args.positionals.joined(separator: " ")
        }
        let db = try Store.openForReading(path: ctx.dbPath)
        let s: Statement
        do { s = try db.prepare(sql) } catch let e as SQLiteError {
            throw CLIError("query: \(e.message)\(e.message.contains("not authorized") ? " (query is read-only: no writes, ATTACH or extensions)" : "")")
        }
        try out.write(ResultDocument(report: "query", params: [("sql", .text(sql))], sections: [try ResultTable.from(s, name: "result")]))
        return 0
    }
}
