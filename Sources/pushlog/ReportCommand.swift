import Foundation
import PushLogKit

/// `pushlog report NAME`
enum ReportCommand: Command {
    static let name = "report"
    static let summary = "Run a named report from the query catalog (see `pushlog reports`)."
    static let usage = "pushlog report NAME [--since TIME] [--until TIME] [--by UNIT] [--topic T] [--env ENV] [--format FMT] [-o FILE] [--fail-if EXPR]"
    static let options = """
      --since TIME       start of the range, inclusive; TIME: RFC 3339, 2026-11-02, 2026-W45,
                         epoch s/ms, now, today, yesterday, -2h, 7d, 90m
      --until TIME       end of the range, exclusive
      --by UNIT          bucket: minute, 5m, hour, day, week (per report)
      --topic T          only this APNs topic
      --env ENV          production or sandbox
      --budget N         silent: background pushes per token-hour (default 3)
      --unit UNIT        opt-out: device or user (default device)
      --week 2026-W47    weekly: the week (default: the last complete week)
      --format FMT       table, csv, tsv, json, ndjson, markdown, html (default: table
                         on a terminal, tsv into a pipe or file)
      -o FILE            write to FILE (format from its extension)
      --reveal-tokens    show device tokens in full
      --fail-if EXPR     exit 3 when EXPR holds on the summary, e.g. 'gone_rate > 0.02'
      --queries DIR      also load reports from DIR/*.sql (default: $PUSHLOG_QUERIES)

    """
    static let valued = OutputTarget.valued + ["--since", "--until", "--by", "--topic", "--env", "--budget", "--unit", "--week", "--fail-if", "--queries"]

    static func run(_ argv: [String], _ ctx: Context) throws -> Int32 {
        let args = try Arguments(argv, command: name, valued: valued, boolean: OutputTarget.boolean)
        guard let reportName = args.positionals.first else {
            throw UsageError(message: "report needs a NAME", hint: "pushlog reports  (lists them), e.g. pushlog report gone")
        }
        let out = try OutputTarget(args)
        let params = try parseParams(args)
        var failIf: FailIf?
        if let e = args.value("--fail-if") {
            guard let f = FailIf(e) else {
                throw UsageError(message: "cannot read --fail-if '\(e)'", hint: "use 'COLUMN OP NUMBER', e.g. --fail-if 'gone_rate > 0.02'")
            }
            failIf = f
        }
        let catalog = try QueryCatalog(userDirectory: args.value("--queries") ?? ProcessInfo.processInfo.environment["PUSHLOG_QUERIES"])
        guard reportName == "weekly" || catalog.report(reportName) != nil else {
            let guess = Arguments.closest(reportName, catalog.reports.map(\.name))
            throw UsageError(message: "no report named '\(reportName)'", hint: (guess.map { "did you mean '\($0)'? " } ?? "") + "pushlog reports lists them")
        }
        let db = try Store.openForReading(path: ctx.dbPath)
        let doc = try ReportRunner(db: db, catalog: catalog).run(name: reportName, params: params)
        try out.write(doc)
        if let failIf {
            guard let v = failIf.observed(in: doc) else {
                throw UsageError(message: "--fail-if: no column '\(failIf.column)' in the summary of \(reportName)",
                                 hint: "columns: \((doc.section("summary") ?? doc.sections.first)?.columns.joined(separator: ", ") ?? "none")")
            }
            if failIf.holds(v) {
                Console.err("pushlog: --fail-if breached: \(failIf.column) = \(v) \(failIf.op) \(failIf.value)")
                return 3
            }
        }
        return 0
    }

    static func parseParams(_ args: Arguments) throws -> ReportParams {
        var p = ReportParams()
        func time(_ flag: String) throws -> Int64? {
            guard let v = args.value(flag) else { return nil }
            guard let t = TimeArgument.parse(v) else {
                throw UsageError(message: "cannot read \(flag) '\(v)'", hint: "TIME is RFC 3339, 2026-11-02, 2026-W45, epoch, now, today, yesterday or -2h/7d/90m")
            }
            return t
        }
        p.since = try time("--since")
        p.until = try time("--until")
        if let s = p.since, let u = p.until, s >= u {
            throw UsageError(message: "--since must be before --until", hint: "the range is [since, until)")
        }
        if let b = args.value("--by") {
            let units = ["minute", "5m", "hour", "day", "week"]
            guard units.contains(b) else {
                throw UsageError(message: "unknown --by '\(b)'", hint: "use one of: \(units.joined(separator: ", "))")
            }
            p.by = b
        }
        p.topic = args.value("--topic")
        if let e = args.value("--env") {
            let n = e == "development" ? "sandbox" : e
            guard n == "production" || n == "sandbox" else {
                throw UsageError(message: "unknown --env '\(e)'", hint: "use production or sandbox")
            }
            p.env = n
        }
        if let b = try args.int("--budget", command: name) { p.budget = Int64(b) }
        if let u = args.value("--unit") {
            guard u == "device" || u == "user" else { throw UsageError(message: "unknown --unit '\(u)'", hint: "use device or user") }
            p.unit = u
        }
        if let w = args.value("--week") {
            guard TimeArgument.week(w) != nil else { throw UsageError(message: "cannot read --week '\(w)'", hint: "use an ISO week such as 2026-W47") }
            p.week = w.uppercased()
        }
        return p
    }
}

/// `pushlog reports`
enum ReportsCommand: Command {
    static let name = "reports"
    static let summary = "List the query catalog: name, title, parameters, description."
    static let usage = "pushlog reports [--queries DIR] [--format FMT]"
    static let options = """
      --queries DIR    also list reports from DIR/*.sql (default: $PUSHLOG_QUERIES)
      --format FMT     table, csv, tsv, json, ndjson, markdown, html

    """

    static func run(_ argv: [String], _ ctx: Context) throws -> Int32 {
        let args = try Arguments(argv, command: name, valued: OutputTarget.valued + ["--queries"], boolean: OutputTarget.boolean)
        let out = try OutputTarget(args)
        let catalog = try QueryCatalog(userDirectory: args.value("--queries") ?? ProcessInfo.processInfo.environment["PUSHLOG_QUERIES"])
        var t = ResultTable(name: "reports", columns: ["name", "title", "parameters", "sections", "description", "origin"])
        for r in catalog.reports {
            t.rows.append([.text(r.name), .text(r.title), .text(r.paramNames.joined(separator: " ")),
                           .text(r.sections.map(\.name).joined(separator: " ")), .text(r.description), .text(r.origin)])
        }
        try out.write(ResultDocument(report: "reports", sections: [t]))
        return 0
    }
}
