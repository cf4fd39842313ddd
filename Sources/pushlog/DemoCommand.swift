import Foundation
import PushLogKit

/// `pushlog demo [DIR]`
enum DemoCommand: Command {
    static let name = "demo"
    static let summary = "Write a realistic sample log set, ingest it and print the weekly report."
    static let usage = "pushlog demo [DIR] [--devices N] [--weeks N] [--end TIME] [--seed N] [--format FMT] [-o FILE]"
    static let optionTable = OptionTable(
        [
            .positional(
                "DIR", help: "where the logs go (default ./pushlog-demo); the database is DIR/pushlog.db",
                "unless --db or $PUSHLOG_DB names one"),
            .value("--devices", placeholder: "N", help: "simulated devices (default 2000; the benchmark uses 20000)"),
            .value("--weeks", placeholder: "N", help: "weeks of logs (default 6, at least 2)"),
            .value(
                "--end", placeholder: "TIME",
                help: "where the logs stop (default now, so the last day is today): the same --seed and --end write the same logs"),
            .value("--seed", placeholder: "N", help: "random seed (default 42)"),
            .value("--gzip-level", placeholder: "N", help: "gzip level of the written logs (default 6)"),
            .flag("--no-report", help: "write and ingest only"),
            .value("--format", placeholder: "FMT", help: "format of the weekly report (default: table on a terminal, tsv otherwise)"),
        ],
        unlisted: OptionSpec.unlisted(flags: ["--quiet"]) + OptionTable.output)

    static func run(_ argv: [String], _ ctx: Context) throws -> Int32 {
        let args = try Arguments(
            argv, command: name, valued: OutputTarget.valued + ["--devices", "--weeks", "--end", "--seed", "--gzip-level"],
            boolean: OutputTarget.boolean + ["--no-report", "--quiet"])
        try args.allowPositionals(1, command: name)
        let out = try OutputTarget(args)
        var o = DemoOptions()
        if let d = try args.int("--devices", command: name) {
            guard d >= 10 else { throw UsageError(message: "--devices must be at least 10", hint: "pushlog demo --devices 2000") }
            o.devices = d
        }
        if let w = try args.int("--weeks", command: name) {
            guard w >= 2 else {
                throw UsageError(message: "--weeks must be at least 2 (the report compares two weeks)", hint: "pushlog demo --weeks 6")
            }
            o.weeks = w
        }
        if let s = try args.int("--seed", command: name) { o.seed = UInt64(s) }
        // The logs end now unless told otherwise, so relative ranges (`--since 7d`) find them.
        o.end = try TimeRangeOptions.time(args, "--end") ?? Int64(Date().timeIntervalSince1970 * 1000)
        if let g = try args.int("--gzip-level", command: name) { o.gzipLevel = Int32(min(9, max(1, g))) }
        let dir = args.positionals.first ?? "pushlog-demo"
        // Only an explicit --db moves the demo's database: $PUSHLOG_DB is usually the real one.
        let explicitDB = argv.contains("--db") || CommandLine.arguments.contains { $0 == "--db" || $0.hasPrefix("--db=") }
        let dbPath = explicitDB ? ctx.dbPath : dir + "/pushlog.db"
        let quiet = args.has("--quiet")

        let started = Date()
        if !quiet { Console.err("demo: writing \(o.weeks) weeks of logs for \(o.devices) devices to \(dir)/ …") }
        let result = try DemoGenerator(o).write(to: dir)
        if !quiet {
            Console.err(
                String(
                    format: "demo: %d records in %d files (%.1fs)", result.records, result.files.count, Date().timeIntervalSince(started)))
        }
        let lock = try WriterLock(databasePath: dbPath) { Console.err("pushlog: waiting for the running ingest to finish") }
        defer { withExtendedLifetime(lock) {} }
        let db = try Store.openForWriting(path: dbPath)
        var io = IngestOptions()
        if !quiet && Console.stderrIsTTY { io.progress = ProgressLine.show }
        let summary = try Ingester(db: db, options: io).run(paths: [dir + "/provider", dir + "/app"])
        if io.progress != nil { ProgressLine.clear() }
        // The totals line: the demo's files are its own, one by one they say nothing.
        if !quiet, let total = IngestReport.table(summary).split(separator: "\n").first(where: { $0.hasPrefix("total:") }) {
            Console.err(String(total))
        }
        if args.has("--no-report") { return summary.failed ? 1 : 0 }
        let doc = try ReportRunner(db: db).run(name: "weekly", params: ReportParams(week: result.lastWeek))
        try out.write(doc, db: db)
        if !quiet {
            let (me, install) = invocation()
            Console.err(
                """

                demo: the expired-JWT incident was injected at \(result.incident).
                next: \(me) --db \(dbPath) reports            (the catalog)
                      \(me) --db \(dbPath) report gone --by day
                      \(me) --db \(dbPath) report weekly --week \(result.lastWeek) -o weekly.html
                      \(me) --db \(dbPath) explain --at \(result.incidentExplainAt)
                """ + (install.map { "\n" + $0 } ?? ""))
        }
        return summary.failed ? 1 : 0
    }

    /// How to call this binary in the next steps: `pushlog` when that is what the shell finds,
    /// else its own path (after `swift run`, pushlog is not on PATH), with how to install it.
    static func invocation() -> (String, String?) {
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for dir in path.split(separator: ":") {
            let candidate = String(dir) + "/pushlog"
            if let real = realpath(candidate, nil) {
                defer { free(real) }
                if String(cString: real) == me { return ("pushlog", nil) }
            }
        }
        let cwd = FileManager.default.currentDirectoryPath + "/"
        let shown = me.hasPrefix(cwd) ? String(me.dropFirst(cwd.count)) : me
        let root = shown.range(of: ".build/").map { String(shown[..<$0.lowerBound]) } ?? ""
        return (
            shown,
            "      (pushlog is not on your PATH; \(root)scripts/install.sh installs it with its man page and completions)"
        )
    }
}
