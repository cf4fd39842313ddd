import Foundation
import PushLogKit

/// `pushlog export PATH...` / `pushlog export --from-db`
enum ExportCommand: Command {
    static let name = "export"
    static let summary = "Stream normalised records as ClickHouse rows (JSONEachRow or TSVWithNames)."
    static let usage = "pushlog export [--format JSONEachRow|TSVWithNames] [--to DIR] [--since TIME] [--until TIME] PATH... | --from-db"
    static let optionTable = OptionTable(
        column: 24,
        [
            .positional(
                "PATH...", help: "files, directories or - (stdin), read exactly as ingest reads them",
                "(formats, detection, gzip, duplicates, rejects); no database is written"),
            .flag("--from-db", help: "export the records of the database (--db) instead of reading logs"),
            .value("--format", placeholder: "FMT", help: "JSONEachRow (default; also json, ndjson) or TSVWithNames (also tsv)"),
            .value(
                "--to", placeholder: "DIR", help: "write DIR/day=YYYY-MM-DD/part-NNNN.ndjson.gz (or .tsv.gz), one",
                "gzipped file per UTC day, instead of stdout; never overwrites a part"),
            .value("--since", placeholder: "TIME", help: "only records at or after TIME"),
            .value("--until", placeholder: "TIME", help: "only records before TIME"),
            .value("--input-format", placeholder: "NAME", help: "force the input format (as for ingest)"),
            .value("--formats", placeholder: "DIR", help: "also your line-format definitions (*.format; default $PUSHLOG_FORMATS)"),
            .flag("--quiet", help: "no summary line on stderr"),
            .flag(
                "--parse-only", help: "read and parse the inputs as ingest does, write nothing, print the",
                "rate (the input side's speed, which no export or ingest can beat)"),
        ],
        unlisted: OptionSpec.unlisted(flags: ["-q"]),
        notes: """

            Every row has the record's kind, time_ms and line_hash (its identity: loading the same lines
            twice into pushlog.records dedupes) and every field of the event schema it has. Tokens are
            written in full: export is a data pipe, not a display, so treat its output like the logs.
            Load: clickhouse-client --query 'INSERT INTO pushlog.records FORMAT JSONEachRow' < rows
            Rejected lines go to stderr with their count; exit 1 when an input was unreadable or damaged.

            """)

    static func run(_ argv: [String], _ ctx: Context) throws -> Int32 {
        let args = try Arguments(argv, command: name, table: optionTable)
        let fromDB = args.has("--from-db")
        if fromDB {
            try args.allowPositionals(0, command: "export --from-db", timeOption: "--since")
        } else if args.positionals.isEmpty {
            throw UsageError(
                message: "export needs a PATH or --from-db",
                hint: "pushlog export logs/ > rows.ndjson  (or: pushlog --db FILE export --from-db)")
        }
        let formatName = args.value("--format") ?? "JSONEachRow"
        guard let format = ExportFormat(name: formatName) else {
            throw UsageError(message: "unknown export --format '\(formatName)'", hint: "use JSONEachRow or TSVWithNames")
        }
        let library = try FormatsCommand.library(args)
        if let f = args.value("--input-format") {
            guard !fromDB else {
                throw UsageError(message: "--input-format reads logs; --from-db reads the database", hint: "drop one of them")
            }
            let known = FormatDetector.names + library.names
            guard known.contains(f) else {
                let guess = Arguments.closest(f, known)
                throw UsageError(
                    message: "unknown --input-format '\(f)'",
                    hint: (guess.map { "did you mean \($0)? " } ?? "") + "known: \(known.joined(separator: ", "))")
            }
        }
        let (since, until) = try TimeRangeOptions.read(args)
        let quiet = args.has("--quiet") || args.has("-q")
        if args.has("--parse-only") {
            guard !fromDB else {
                throw UsageError(message: "--parse-only reads logs; --from-db reads the database", hint: "drop one of them")
            }
            let r = try ParseOnly.run(paths: args.positionals, inputFormat: args.value("--input-format"), library: library)
            Console.err(
                String(
                    format: "parse only: %d lines (%d records) in %.2f s = %.0f lines/s", r.lines, r.records, r.seconds,
                    Double(r.lines) / max(r.seconds, 1e-9)))
            return 0
        }
        let sink: ExportSink
        if let dir = args.value("--to") {
            sink = try DayPartitionSink(directory: dir, format: format)
        } else {
            sink = StreamSink(format: format)
        }
        let started = Date()
        if fromDB {
            let db = try Store.openForReading(path: ctx.dbPath)
            let rows = try RecordDump.run(db, since: since, until: until, ordered: sink is DayPartitionSink, into: sink)
            if !quiet { Console.err("export: \(rows) records from \(ctx.dbPath) in \(seconds(started))") }
            return 0
        }
        let missing = args.positionals.filter { $0 != "-" && !FileManager.default.fileExists(atPath: $0) }
        if missing.count == args.positionals.count {
            for m in missing { Console.err("pushlog: \(m): no such file or directory") }
            return 1
        }
        var export = LogExport()
        export.options.inputFormat = args.value("--input-format").map { InputFormat($0, library: library) }
        export.options.formats = library
        let result = try export.run(paths: args.positionals, since: since, until: until, into: sink)
        let summary = result.summary
        for f in summary.files {
            if let e = f.error { Console.err("pushlog: \(f.path): \(e)\(f.complete ? "" : " — records before the damage were exported")") }
            for w in f.warnings { Console.err("pushlog: \(f.path): warning: \(w)") }
        }
        for p in summary.problems { Console.err("pushlog: \(p)") }
        for r in result.rejects { Console.err("pushlog: \(r.path):\(r.line): rejected: \(r.reason)") }
        if result.rejectCount > result.rejects.count {
            Console.err("pushlog: … and \(result.rejectCount - result.rejects.count) more rejected lines")
        }
        if !quiet || result.rejectCount > 0 {
            let rate = Double(result.rows) / max(Date().timeIntervalSince(started), 1e-6)
            Console.err(
                "export: \(result.rows) records from \(summary.files.count) files, \(summary.duplicates) duplicates, "
                    + "\(result.rejectCount) rejected lines, \(summary.skipped) skipped, \(seconds(started)) (\(Int(rate)) records/s)")
        }
        return summary.failed ? 1 : 0
    }

    static func seconds(_ since: Date) -> String { String(format: "%.2f s", Date().timeIntervalSince(since)) }
}
