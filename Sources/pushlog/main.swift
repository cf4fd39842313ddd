import Foundation
import PushLogKit

/// Global state every command gets: the database path.
struct Context {
    var dbPath: String
    /// `--clickhouse URL` or `$PUSHLOG_CLICKHOUSE`: run the command against that server instead.
    var clickhouse: ClickHouseURL? = nil
}

/// One subcommand: its help and its entry point. Sendable: a command is a caseless enum of
/// static members, and the `commands` list is read from nonisolated code.
protocol Command: Sendable {
    static var name: String { get }
    static var summary: String { get }
    static var usage: String { get }
    /// Its options, declared once: parsing, `--help`, completion and the man page read them.
    static var optionTable: OptionTable { get }
    static func run(_ args: [String], _ ctx: Context) throws -> Int32
}

extension Command {
    /// The OPTIONS section of its help.
    static var options: String { optionTable.text }

    static var help: String {
        var s = "OVERVIEW: \(summary)\n\nUSAGE: \(usage)\n"
        if !options.isEmpty { s += "\nOPTIONS:\n\(options)" }
        return s
    }
}

let commands: [Command.Type] = [
    IngestCommand.self, ReportCommand.self, ReportsCommand.self, ExplainCommand.self, QueryCommand.self, TraceCommand.self,
    SourcesCommand.self, RejectsCommand.self, PruneCommand.self, CheckCommand.self, DemoCommand.self, SchemaCommand.self,
    CompletionCommand.self,
    TokensCommand.self, MetricsCommand.self, FormatsCommand.self,
    ExportCommand.self,
]

func mainHelp() -> String {
    var s = """
        OVERVIEW: pushlog — APNs delivery logs into SQLite, and the answers ops need from them.

        USAGE: pushlog [--db FILE] COMMAND [options]

        GLOBAL OPTIONS:

        """
    s += GlobalOptions.table.text + "\nSUBCOMMANDS:\n\n"
    for c in commands { s += "  " + c.name.padding(toLength: 12, withPad: " ", startingAt: 0) + c.summary + "\n" }
    s += "\nExit status: 0 ok, 1 runtime failure, 2 usage error, 3 a --fail-if threshold breached,\n"
    s += "4 a --fail-if over a range that holds no records, or explain with nothing to compare.\n"
    return s
}

func runMain() -> Int32 {
    var args = Array(CommandLine.arguments.dropFirst())
    var ctx = Context(dbPath: ProcessInfo.processInfo.environment["PUSHLOG_DB"].flatMap { $0.isEmpty ? nil : $0 } ?? "pushlog.db")
    // Which store the command line names: `--db` or `--clickhouse` (given both, it is a usage
    // error); the environment only when it names neither, so a flag always wins.
    var dbGiven = false, clickhouseGiven = false
    func clickhouse(at i: Int) -> UsageError? {
        let a = args[i]
        let v = a == "--clickhouse" ? (i + 1 < args.count ? args[i + 1] : nil) : String(a.dropFirst("--clickhouse=".count))
        args.removeSubrange(i..<(a == "--clickhouse" ? min(i + 2, args.count) : i + 1))
        clickhouseGiven = true
        do { ctx.clickhouse = try ClickHouseCommands.url(v) } catch {
            return error as? UsageError ?? UsageError(message: "\(error)", hint: "pushlog --help")
        }
        return nil
    }
    // Global options come before the command.
    while let a = args.first, a.hasPrefix("-") {
        if a == "--version" || a == "-V" { Console.out("pushlog \(PushLog.version)\n"); return 0 }
        if a == "--help" || a == "-h" { Console.out(mainHelp()); return 0 }
        if a == "--db" {
            guard args.count >= 2 else { return usage(UsageError(message: "--db needs a file", hint: "pushlog --db pushlog.db COMMAND")) }
            ctx.dbPath = args[1]
            args.removeFirst(2)
            dbGiven = true
        } else if a.hasPrefix("--db=") {
            ctx.dbPath = String(a.dropFirst(5))
            args.removeFirst()
            dbGiven = true
        } else if a == "--clickhouse" || a.hasPrefix("--clickhouse=") {
            if let e = clickhouse(at: 0) { return usage(e) }
        } else {
            return usage(
                UsageError(
                    message: "unknown global option \(a)",
                    hint: "global options are \(GlobalOptions.spelled); command options go after the command"))
        }
    }
    // Bare `pushlog` is a usage error, as for git: the usage goes to stderr.
    guard let name = args.first else { Console.err(mainHelp()); return 2 }
    args.removeFirst()
    if name == "help" {
        if args.first == "--man" { Console.out(ManPage.render()); return 0 }
        if let sub = args.first {
            guard let c = commands.first(where: { $0.name == sub }) else {
                return usage(UsageError(message: "no command '\(sub)'", hint: "pushlog help"))
            }
            Console.out(c.help)
        } else {
            Console.out(mainHelp())
        }
        return 0
    }
    guard let cmd = commands.first(where: { $0.name == name }) else {
        let guess = Arguments.closest(name, commands.map { $0.name })
        return usage(
            UsageError(message: "unknown command '\(name)'", hint: guess.map { "did you mean '\($0)'? (pushlog help)" } ?? "pushlog help"))
    }
    if args.contains("--help") || args.contains("-h") {
        // `report NAME --help` adds what that report's header declares.
        Console.out(cmd.name == ReportCommand.name ? ReportCommand.help(for: args) : cmd.help)
        return 0
    }
    // --db and --clickhouse are accepted after the command too.
    if let i = args.firstIndex(of: "--db"), i + 1 < args.count {
        ctx.dbPath = args[i + 1]
        args.removeSubrange(i...(i + 1))
        dbGiven = true
    }
    // Every one is taken out, so no URL (and no password in it) reaches a message about a stray argument.
    while let i = args.firstIndex(where: { $0 == "--clickhouse" || $0.hasPrefix("--clickhouse=") }) {
        if let e = clickhouse(at: i) { return usage(e) }
    }
    if dbGiven && clickhouseGiven {
        return usage(
            UsageError(
                message: "--db and --clickhouse name two stores; give one",
                hint: "pushlog --db FILE \(name) …  or  pushlog --clickhouse URL \(name) …"))
    }
    if !dbGiven && ctx.clickhouse == nil, let env = ProcessInfo.processInfo.environment["PUSHLOG_CLICKHOUSE"], !env.isEmpty {
        do { ctx.clickhouse = try ClickHouseCommands.url(env) } catch let e as UsageError { return usage(e) } catch { return 1 }
    }
    // The ClickHouse settings read from the environment: a malformed one is a usage error.
    for variable in GlobalOptions.environment where ctx.clickhouse != nil {
        if let setting = variable.setting, let value = ProcessInfo.processInfo.environment[variable.name], !setting.valid(value) {
            return usage(
                UsageError(
                    message: "\(variable.name) expects \(setting.expects), got '\(value)'",
                    hint: "\(variable.name)=\(setting.example) pushlog \(name) …"))
        }
    }
    var isDir: ObjCBool = false
    if ctx.clickhouse == nil, FileManager.default.fileExists(atPath: ctx.dbPath, isDirectory: &isDir), isDir.boolValue {
        return usage(
            UsageError(
                message: "--db \(ctx.dbPath) is a folder; it names the database file",
                hint: "pushlog --db \(ctx.dbPath.hasSuffix("/") ? ctx.dbPath : ctx.dbPath + "/")pushlog.db \(name) …"))
    }
    // How long each phase took, for benchmarking: printed after the command, whatever its end.
    if ProcessInfo.processInfo.environment["PUSHLOG_TIMINGS"] != nil { PhaseTimer.start() }
    defer { for phase in PhaseTimer.take() { Console.err(phase.line) } }
    do {
        if let url = ctx.clickhouse { return try ClickHouseCommands.run(cmd, args, ctx, url) }
        return try cmd.run(args, ctx)
    } catch let e as UsageError {
        return usage(e)
    } catch let e as UndeclaredParameter {
        Console.err("pushlog: \(e)")
        return 2
    } catch let e as ReportFileError {
        Console.err("pushlog: \(e)")
        return 2
    } catch let e as ExitStatus {
        return e.code
    } catch let e as StoreError where e.isDamage {
        // Nothing read from a damaged file can be trusted, and writing on would bury the damage.
        Console.err(
            "pushlog: \(ctx.dbPath) is damaged: \(e.message) (SQLite error \(e.sqliteCode ?? 0)). "
                + "Run `pushlog --db \(ctx.dbPath) check` to see what is damaged, then restore the file from a backup "
                + "or rebuild it from the logs into a new file (docs/operations.md)")
        return 1
    } catch let e as StoreError {
        // A database error names the database (unless the message already does); SQLite's own
        // failures add the result code and the statement that failed.
        let sqlite =
            e.sqliteCode.map { " (SQLite error \($0)" + (e.sql.map { "; while running: \(StoreError.abbreviated($0))" } ?? "") + ")" } ?? ""
        Console.err("pushlog: \(e.message.contains(ctx.dbPath) ? "" : ctx.dbPath + ": ")\(e.message)\(sqlite)")
        return 1
    } catch {
        Console.err("pushlog: \(error)")
        return 1
    }
}

func usage(_ e: UsageError) -> Int32 {
    Console.err("pushlog: \(e.message)\nhint: \(e.hint)")
    return 2
}

exit(runMain())
