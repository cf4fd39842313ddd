import PushLogKit

/// `pushlog prune --before TIME`
enum PruneCommand: Command {
    static let name = "prune"
    static let summary = "Delete records older than TIME (retention) and vacuum the database."
    static let usage = "pushlog prune --before TIME [--no-vacuum]"
    static let options = """
      --before TIME    delete every record with a time before TIME (RFC 3339, 2026-11-02, 2026-W45, 90d, ...)
      --no-vacuum      skip VACUUM (faster; the file does not shrink)

    """

    static func run(_ argv: [String], _ ctx: Context) throws -> Int32 {
        let args = try Arguments(argv, command: name, valued: ["--before"], boolean: ["--no-vacuum"])
        try args.allowPositionals(0, command: name, timeOption: "--before")
        guard let b = args.value("--before") else {
            throw UsageError(message: "prune needs --before TIME", hint: "pushlog prune --before 90d")
        }
        guard let t = TimeArgument.parse(b) else {
            throw UsageError(message: "cannot read --before '\(b)'", hint: "TIME is RFC 3339, 2026-11-02, 2026-W45, epoch, or -90d")
        }
        let lock = try WriterLock(databasePath: ctx.dbPath) { Console.err("pushlog: waiting for the running ingest to finish") }
        defer { withExtendedLifetime(lock) {} }
        let db = try Store.openForWriting(path: ctx.dbPath)
        let n = try Retention.prune(db, before: t, vacuum: !args.has("--no-vacuum"))
        Console.err("pruned \(n) records before \(TimeFormat.rfc3339(ms: t))")
        return 0
    }
}
