import Foundation
import PushLogKit

/// `pushlog prune --before TIME`
enum PruneCommand: Command {
    static let name = "prune"
    static let summary = "Delete records older than TIME (retention) and vacuum the database."
    static let usage = "pushlog prune --before TIME [--dry-run] [--yes] [--no-vacuum]"
    static let optionTable = OptionTable(
        [
            .value(
                "--before", placeholder: "TIME",
                help: "delete every record with a time before TIME (RFC 3339, 2026-11-02, 2026-W45, 90d, ...)"),
            .flag("--dry-run", help: "only count what would be deleted"),
            .flag(
                "--yes", help: "do not ask (on a terminal prune shows the counts and asks first;",
                "without one, from cron or a script, --yes is required)"),
            .flag("--no-vacuum", help: "skip VACUUM (faster; the file does not shrink)"),
        ],
        unlisted: OptionSpec.unlisted(flags: ["-y"]))

    static func run(_ argv: [String], _ ctx: Context) throws -> Int32 {
        let args = try Arguments(argv, command: name, table: optionTable)
        try args.allowPositionals(0, command: name, timeOption: "--before")
        guard let b = args.value("--before") else {
            throw UsageError(message: "prune needs --before TIME", hint: "pushlog prune --before 90d")
        }
        guard let t = TimeArgument.parse(b) else {
            throw UsageError(message: "cannot read --before '\(b)'", hint: "TIME is RFC 3339, 2026-11-02, 2026-W45, epoch, or -90d")
        }
        let counts = try Retention.count(try Store.openForReading(path: ctx.dbPath), before: t)
        let total = counts.reduce(0) { $0 + $1.1 }
        let what = counts.filter { $0.1 > 0 }.map { "\($0.1) \($0.0)" }.joined(separator: ", ")
        Console.err("prune: \(total) records before \(TimeFormat.rfc3339(ms: t))\(what.isEmpty ? "" : " (\(what))") in \(ctx.dbPath)")
        if args.has("--dry-run") || total == 0 { return 0 }
        // Deleting cannot be undone: on a terminal, ask; without one (a script, cron) nobody can
        // answer, so the caller says --yes up front.
        let confirmed = args.has("--yes") || args.has("-y")
        if !confirmed && !(Console.stdinIsTTY && Console.stderrIsTTY) {
            throw UsageError(
                message: "prune deletes records for good: without a terminal to ask on, it needs --yes",
                hint: "pushlog prune --before \(b) --yes  (or --dry-run to only count)")
        }
        if !confirmed {
            FileHandle.standardError.write("delete them? [y/N] ".data(using: .utf8)!)
            guard let answer = readLine(), ["y", "yes"].contains(answer.lowercased()) else {
                Console.err("prune: nothing deleted")
                return 1
            }
        }
        let lock = try WriterLock(databasePath: ctx.dbPath) { Console.err("pushlog: waiting for the running ingest to finish") }
        defer { withExtendedLifetime(lock) {} }
        let db = try Store.openForWriting(path: ctx.dbPath)
        let n = try Retention.prune(db, before: t, vacuum: !args.has("--no-vacuum"))
        Console.err("pruned \(n) records before \(TimeFormat.rfc3339(ms: t))")
        return 0
    }
}
