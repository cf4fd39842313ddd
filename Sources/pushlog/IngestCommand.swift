import Foundation
import PushLogKit
import Synchronization

/// `pushlog ingest PATH...`
enum IngestCommand: Command {
    static let name = "ingest"
    static let summary = "Ingest log files, directories (recursive) or - (stdin), plain or gzipped."
    static let usage = "pushlog ingest [--input-format NAME] [--formats DIR] [--format table|json] [--quiet] PATH..."
    static let optionTable = OptionTable(
        column: 24,
        [
            .value(
                "--input-format", placeholder: "NAME",
                help: "force the input format (\(FormatDetector.names.joined(separator: ", ")), or a",
                "line-format definition's name: pushlog formats); default: detected per file"),
            .value("--formats", placeholder: "DIR", help: "also your line-format definitions (*.format; default $PUSHLOG_FORMATS)"),
            .value(
                "--format", placeholder: "table|json",
                help: #"summary format (json: {"files": [...], "totals": {...}}, see docs/operations.md)"#),
            .flag("--quiet", help: "no progress line, no summary table"),
            .flag(
                "--verbose", help: "list every file in the summary (default: only new, grown, incomplete",
                "or refused files, and the total line)"),
            .value(
                "--batch", placeholder: "N",
                help: "lines per commit (default 200000; on ClickHouse records per insert, default 100000)"),
            .flag(
                "--no-wait", help: "fail at once (exit 1) if another ingest holds the database (ClickHouse",
                "takes concurrent ingests: never waits)"),
            .flag(
                "--follow", "-f", help: "keep reading: growing files, new files in the folders, rotation by",
                "rename or truncation; commits at least every 2 s; Ctrl-C or SIGTERM", "finishes the round in progress and exits 0"),
            .value("--interval", placeholder: "SECONDS", help: "--follow: seconds between polls (default 1)"),
        ],
        unlisted: OptionSpec.unlisted(flags: ["-q", "-v"]))

    /// The line formats (built-in and `--formats DIR`) with `--input-format` checked against
    /// them, and the summary's format (`--format table|json`).
    static func formats(_ args: Arguments) throws -> (FormatLibrary, String) {
        let library = try FormatsCommand.library(args)
        let known = FormatDetector.names + library.names
        if let f = args.value("--input-format"), !known.contains(f) {
            let guess = Arguments.closest(f, known)
            throw UsageError(
                message: "unknown --input-format '\(f)'",
                hint: (guess.map { "did you mean \($0)? " } ?? "") + "known: \(known.joined(separator: ", "))")
        }
        let format = args.value("--format") ?? "table"
        guard format == "table" || format == "json" else {
            throw UsageError(message: "ingest --format must be table or json, got '\(format)'", hint: "pushlog ingest --format json PATH")
        }
        return (library, format)
    }

    static func run(_ argv: [String], _ ctx: Context) throws -> Int32 {
        let args = try Arguments(argv, command: name, table: optionTable)
        guard !args.positionals.isEmpty else {
            throw UsageError(message: "ingest needs at least one PATH", hint: "pushlog ingest logs/  (or - for stdin)")
        }
        let (library, format) = try formats(args)
        let quiet = args.has("--quiet") || args.has("-q")
        var opts = IngestOptions()
        opts.inputFormat = args.value("--input-format").map { InputFormat($0, library: library) }
        opts.formats = library
        let batch = try args.int("--batch", command: name).map { max(1, $0) }
        if let batch { opts.batchLines = batch }
        let showProgress = !quiet && Console.stderrIsTTY
        if showProgress { opts.progress = ProgressLine.show }
        let following = args.has("--follow") || args.has("-f")
        let interval = following ? try followInterval(args) : 0
        // Nothing to read creates no database: every path missing is an error before anything is written.
        let missing = args.positionals.filter { $0 != "-" && !FileManager.default.fileExists(atPath: $0) }
        if missing.count == args.positionals.count {
            for m in missing { Console.err("pushlog: \(m): no such file or directory") }
            return 1
        }
        // The engine is the one difference: where the records go (and what the summary names).
        let store: Store
        if let url = ctx.clickhouse {
            let ingest = ClickHouseIngest(client: ClickHouseClient(url))
            ingest.options = opts
            if let b = batch ?? ProcessInfo.processInfo.environment["PUSHLOG_CLICKHOUSE_BATCH"].flatMap(Int.init), b > 0 {
                ingest.batchRows = b
            }
            // On a terminal the progress line says when the facts' rebuild starts; a follow has
            // none, so the notice says it when the follow stops.
            if following, !quiet, let notice = Console.factsRebuildNotice { ingest.rebuilding = notice }
            store = .clickhouse(ingest, "\(url)")
        } else {
            // --no-wait: a ClickHouse server takes concurrent ingests, so only SQLite's writer lock waits.
            let lock = try WriterLock(databasePath: ctx.dbPath, wait: !args.has("--no-wait")) {
                Console.err("pushlog: another ingest is writing to \(ctx.dbPath); waiting for it to finish (--no-wait to fail instead)")
            }
            store = .sqlite(try openForWriting(ctx.dbPath), lock, ctx.dbPath)
        }
        defer { if case .sqlite(_, let lock, _) = store { withExtendedLifetime(lock) {} } }
        if following {
            let follower: Follower
            switch store {
            case .sqlite(let db, _, _):
                opts.progress = nil
                follower = Follower(db: db, paths: args.positionals, options: opts)
            case .clickhouse(let ingest, _):
                ingest.options.progress = nil
                follower = Follower(clickhouse: ingest, paths: args.positionals)
            }
            return try follow(follower, paths: args.positionals, into: store.name, quiet: quiet, interval: interval)
        }
        opts.stop = stopOnSignals()
        let summary = try ProgressLine.clearing(showProgress) {
            switch store {
            case .sqlite(let db, _, _): return try Ingester(db: db, options: opts).run(paths: args.positionals)
            case .clickhouse(let ingest, _):
                ingest.options.stop = opts.stop
                return try ingest.run(paths: args.positionals)
            }
        }
        printDiagnostics(summary)
        if format == "json" {
            Console.out(IngestReport.json(summary))
        } else if !quiet {
            let database: String? = if case .sqlite(_, _, let path) = store { path } else { nil }
            Console.err(IngestReport.table(summary, verbose: args.has("--verbose") || args.has("-v"), database: database))
        }
        return exitStatus(summary)
    }

    /// Where an ingest writes: a SQLite database (held by its writer lock) or a ClickHouse server.
    enum Store {
        case sqlite(Database, WriterLock, String)
        case clickhouse(ClickHouseIngest, String)

        /// What the follow's messages call it: the database file, or the server (password masked).
        var name: String {
            switch self {
            case .sqlite(_, _, let path): path
            case .clickhouse(_, let url): url
            }
        }
    }

    /// The SQLite database, opened for writing (migrated in place, once, saying so).
    static func openForWriting(_ path: String) throws -> Database {
        let migrateStart = Date()
        var migrated = false
        let db = try PushLogKit.Store.openForWriting(path: path) { version in
            migrated = true
            Console.err(
                "pushlog: \(path) has schema version \(version); migrating it to \(Schema.version) in place, once; "
                    + "a run stopped half-way goes on from the last step it finished")
        }
        if migrated {
            Console.err(
                String(
                    format: "pushlog: migrated in %.1fs; the database is now %.1f MB", Date().timeIntervalSince(migrateStart),
                    Double((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0) / 1_048_576))
        }
        return db
    }

    /// 128 plus the signal's number when one stopped the run (130 for SIGINT, 143 for SIGTERM,
    /// as a shell reports a command the signal killed), else 1 when anything failed.
    static func exitStatus(_ summary: IngestSummary) -> Int32 {
        if let signal = summary.interruptedBy { return 128 + signal }
        return summary.failed ? 1 : 0
    }

    /// Set by the SIGINT/SIGTERM handler of a run that is not `--follow`.
    static let stop = StopRequest()

    /// From now on SIGINT and SIGTERM stop the run (reading ends, what is complete is kept),
    /// instead of killing the process. Installed once the write lock is held and the database
    /// open: a signal before that kills the process, which has written nothing.
    static func stopOnSignals() -> StopRequest {
        signal(SIGINT) { IngestCommand.stop.request(signal: $0) }
        signal(SIGTERM) { IngestCommand.stop.request(signal: $0) }
        return stop
    }
}

extension IngestCommand {
    /// What an ingest says on stderr of its files and problems, on either engine: each file's read
    /// error (unless a problem says the run stopped there), its warnings, and a refusal met while
    /// walking a folder (a named file's refusal is a problem), then the problems.
    static func printDiagnostics(_ summary: IngestSummary) {
        for f in summary.files {
            if let e = f.error, !(summary.problems.contains { $0.hasPrefix("stopped at \(f.path)") }) {
                Console.err(
                    "pushlog: \(f.path): \(e)" + (f.complete ? "" : " — records before the damage were kept; source marked incomplete"))
            }
            for w in f.warnings { Console.err("pushlog: \(f.path): warning: \(w)") }
            if let why = f.refused, !f.unchanged, !(summary.problems.contains { $0.hasPrefix("\(f.path): ") }) {
                Console.err("pushlog: skipped \(f.path): \(why)")
            }
        }
        for n in summary.notes { Console.err("pushlog: \(n)") }
        for p in summary.problems { Console.err("pushlog: \(p)") }
    }

    /// Set by the SIGINT/SIGTERM handler, read by the polling loop: an atomic, which a signal
    /// handler may store to and Swift 6 lets two contexts share.
    static let stopFollowing = Atomic<Int32>(0)

    /// `--follow`'s seconds between looks (`--interval`, default 1), once its paths are known not
    /// to hold stdin, which cannot be followed.
    static func followInterval(_ args: Arguments) throws -> Double {
        guard !args.positionals.contains("-") else {
            throw UsageError(message: "--follow reads files and folders, not stdin", hint: "pushlog ingest --follow /var/log/pusher/")
        }
        guard let v = args.value("--interval") else { return 1 }
        guard let i = Double(v), i >= 0.05, i <= 3600 else {
            throw UsageError(message: "--interval expects seconds (0.05 to 3600), got '\(v)'", hint: "--interval 1")
        }
        return i
    }

    /// Polls until SIGINT/SIGTERM. On a terminal one status line, redrawn in place, says what the
    /// follow has done (`FollowStatus`); off a terminal it is printed at most once a minute, and
    /// when the follow stops. Errors, problems and each file's first passed-over line are
    /// printed as they come, once.
    static func follow(_ follower: Follower, paths: [String], into store: String, quiet: Bool, interval: Double) throws -> Int32 {
        signal(SIGINT) { _ in IngestCommand.stopFollowing.store(1, ordering: .relaxed) }
        signal(SIGTERM) { _ in IngestCommand.stopFollowing.store(1, ordering: .relaxed) }
        if !quiet { Console.err("pushlog: following \(paths.joined(separator: " ")) into \(store) (Ctrl-C to stop)") }
        let tty = Console.stderrIsTTY
        var status = FollowStatus()
        var printed: (at: Date, line: String)?
        func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
        func say(_ text: String) {
            if tty { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
            Console.err(text)
        }
        _ = try follower.run(interval: interval, stop: { IngestCommand.stopFollowing.load(ordering: .relaxed) != 0 }) { s in
            for f in s.files where f.error != nil { say("pushlog: \(f.path): \(f.error!)") }
            for f in s.files { for w in f.warnings { say("pushlog: \(f.path): warning: \(w)") } }
            for p in s.problems { say("pushlog: \(p)") }
            let tell = status.add(s, followed: follower.followed, rotations: follower.rotations)
            guard !quiet else { return }
            for t in tell { say("pushlog: \(t)") }
            let line = status.line(now: now())
            if tty {
                FileHandle.standardError.write(Data("\r\u{1B}[K\(line)".utf8))
            } else if printed.map({ Date().timeIntervalSince($0.at) >= 60 && $0.line != line }) ?? true {
                Console.err(line)
                printed = (Date(), line)
            }
        }
        if !quiet {
            if tty { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
            Console.err(status.line(now: now()))
            Console.err("pushlog: stopped following; everything read is in \(store)")
        }
        return 0
    }
}

/// A progress line on stderr, redrawn in place.
enum ProgressLine {
    static func show(_ p: IngestProgress) {
        if let phase = p.phase {
            FileHandle.standardError.write("\r\u{1B}[Kingest: \(p.records) records read; \(phase)…".data(using: .utf8)!)
            return
        }
        let mb = Double(p.bytesIn) / 1_048_576
        let rate = p.seconds > 0 ? Double(p.records) / p.seconds : 0
        var eta = ""
        if p.bytesIn > 0 && p.bytesTotal > p.bytesIn {
            let secs = p.seconds * Double(p.bytesTotal - p.bytesIn) / Double(p.bytesIn)
            eta = String(format: "  ETA %.0fs", secs)
        }
        let line = String(
            format: "\r\u{1B}[Kingest: file %d/%d  %@ records  %.1f MB  %@ rec/s%@",
            min(p.filesDone + 1, p.filesTotal), p.filesTotal, "\(p.records)", mb, "\(Int(rate))", eta)
        FileHandle.standardError.write(line.data(using: .utf8)!)
    }
    static func clear() { FileHandle.standardError.write("\r\u{1B}[K".data(using: .utf8)!) }
    /// `body`, with the line (when `shown`) cleared after it, also when it throws: the error's
    /// message then starts a line of its own.
    static func clearing<T>(_ shown: Bool, _ body: () throws -> T) rethrows -> T {
        defer { if shown { clear() } }
        return try body()
    }
}
