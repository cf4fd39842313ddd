import Foundation
import PushLogKit

/// `pushlog report NAME`
enum ReportCommand: Command {
    static let name = "report"
    static let summary = "Run a named report from the query catalog (see `pushlog reports`)."
    static let usage =
        "pushlog report NAME [--since TIME] [--until TIME] [--by UNIT] [--topic T] [--env ENV] [--format FMT] [-o FILE] [--fail-if EXPR]"
    static let optionTable = OptionTable(
        column: 21,
        [
            .value(
                "--since", placeholder: "TIME", help: "start of the range, inclusive; TIME: RFC 3339, 2026-11-02, 2026-W45,",
                "epoch s/ms, now, today, yesterday, -2h, 7d, 90m"),
            .value("--until", placeholder: "TIME", help: "end of the range, exclusive"),
            .value(
                "--by", placeholder: "UNIT", help: "bucket: minute, 5m, hour, day, week, or a dimension: topic, env,",
                "app_version, push_type, reason (per report: pushlog reports);", "errors' buckets carry bucket_responses and share"),
            .value(
                "--compare", placeholder: "previous", help: "add COL_prev and COL_change for the same-length range before (a row",
                "of one period compares against 0; a relative --since starts at a", "whole bucket, stated as aligned_to)"),
            .value("--topic", placeholder: "T", help: "only this APNs topic"),
            .value("--env", placeholder: "ENV", help: "production or sandbox"),
            .value("--budget", placeholder: "N", help: "silent: background pushes per token-hour (default 3)"),
            .value("--unit", placeholder: "UNIT", help: "opt-out: device or user (default device)"),
            .value("--week", placeholder: "2026-W47", help: "weekly: the week (default: the last complete week)"),
            .value("--rule", placeholder: "ID", help: "hygiene: only this rule, so --fail-if reads its row"),
            .value(
                "--format", placeholder: "FMT", help: "table, csv, tsv, json, ndjson, markdown, html (default: table",
                "on a terminal, tsv into a pipe or file)"),
            .value("-o", placeholder: "FILE", help: "write to FILE (format from its extension)"),
            .value("--section", placeholder: "NAME", help: "only this section (one table, as a spreadsheet expects)"),
            .flag("--reveal-tokens", help: "show device tokens in full"),
            .value(
                "--fail-if", placeholder: "EXPR", help: "exit 3 when EXPR holds on a summary row, e.g. 'gone_rate > 0.02';",
                "exit 4 when the range holds none of the report's records"),
            .value("--queries", placeholder: "DIR", help: "also load reports from DIR/*.sql (default: $PUSHLOG_QUERIES)"),
            // Taken out of the arguments before they are parsed (`Watch.extract`): its value is optional.
            OptionSpec(
                names: ["--watch"], kind: .flag, label: "--watch [SECONDS]",
                help: ["rerun and redraw every SECONDS (default 2) until Ctrl-C"],
                listed: true),
            .flag("--no-pager", help: "never page long output on a terminal (default: $PAGER, less -FRX)"),
            .value("--color", placeholder: "WHEN", help: "auto (default: on a terminal, unless NO_COLOR), always, never"),
        ],
        unlisted: OptionTable.output)
    /// Options that set a report parameter: `--NAME` sets `:NAME`, and only reports that declare
    /// `-- param: NAME` take it.
    static let parameterOptions = ["--since", "--until", "--by", "--topic", "--env", "--budget", "--unit", "--week", "--rule"]

    /// A report run as asked for: parsed and checked before any database is opened, the same for
    /// every engine.
    struct Request {
        let args: Arguments
        let name: String
        let def: ReportDefinition
        let catalog: QueryCatalog
        let out: OutputTarget
        let params: ReportParams
        let compare: Bool
        /// The bucket a relative range was aligned to, and how far back `--compare` looks.
        let aligned: TimeUnit?
        let shift: Int64
        let conditions: [FailCondition]
    }

    static func request(_ argv: [String]) throws -> Request {
        // A report's own parameters are options of that report: known once its header is read,
        // so the catalog is read before the options are parsed.
        let (named, queries) = reportAndQueries(argv)
        let catalog = try QueryCatalog(userDirectory: queries ?? ProcessInfo.processInfo.environment["PUSHLOG_QUERIES"])
        let ownOptions = named.flatMap { catalog.report($0) }?.ownParams.map { "--" + $0.name } ?? []
        let args = try Arguments(argv, command: name, valued: optionTable.valued + ownOptions, boolean: optionTable.boolean)
        guard let reportName = args.positionals.first else {
            throw UsageError(message: "report needs a NAME", hint: "pushlog reports  (lists them), e.g. pushlog report gone")
        }
        try args.allowPositionals(1, command: "report \(reportName)", timeOption: "--since")
        let out = try OutputTarget(args)
        guard let def = catalog.report(reportName) else {
            let guess = Arguments.closest(reportName, catalog.reports.map(\.name))
            throw UsageError(
                message: "no report named '\(reportName)'",
                hint: (guess.map { "did you mean '\($0)'? " } ?? "") + "pushlog reports lists them")
        }
        try refuseUndeclared(args, def)
        var params = try parseParams(args)
        try parseOwnParams(args, def, into: &params)
        let compare = try comparePrevious(args, def, &params)
        let aligned = alignRange(args, def, &params, compare: compare)
        let shift = compare ? try compareShift(args, def, params) : 0
        var conditions: [FailCondition] = []
        for e in args.all("--fail-if") {
            guard let c = FailCondition(e) else {
                throw UsageError(
                    message: "cannot read --fail-if '\(e)'",
                    hint: "use 'COLUMN OP NUMBER', joined by and/or, e.g. --fail-if 'gone_rate > 0.02 or gone > 500'")
            }
            conditions.append(c)
        }
        return Request(
            args: args, name: reportName, def: def, catalog: catalog, out: out, params: params, compare: compare, aligned: aligned,
            shift: shift, conditions: conditions)
    }

    static func run(_ argv0: [String], _ ctx: Context) throws -> Int32 {
        let (watch, argv) = try Watch.extract(argv0)
        let req = try request(argv)
        let (def, out) = (req.def, req.out)
        // On ClickHouse a `--watch` round takes a new engine, which checks the kept facts against
        // the records afresh (an ingest may have added rows meanwhile); the SQLite store reads a
        // new snapshot each round.
        let open = try engines(ctx, watching: watch != nil)
        let engine = try open()
        let runner = ReportRunner(engine: engine, catalog: req.catalog)
        var doc = try engine.reading(def, req.params) {
            var d = try run(req, runner, req.params, compare: req.compare, shift: req.shift)
            // The page gives each of its first incidents a section saying what changed in it;
            // not a page of one topic or env, which `explain` (over every topic and env) would not match.
            if out.format == .html && def.isKPIPage && watch == nil && req.params.topic == nil && req.params.env == nil {
                d.explained = try runner.incidentExplanations(d)
            }
            return d
        }
        if let aligned = req.aligned { doc.params.append(("aligned_to", .text(aligned.rawValue))) }
        try checkRule(def, params: req.params, conditions: req.conditions, doc: doc, runner: runner)
        try checkColumns(req, doc)
        if let watch {
            guard out.path == nil else {
                throw UsageError(message: "--watch redraws a terminal; it does not write -o files", hint: "drop -o")
            }
            return try Watch.loop(every: watch, title: "pushlog report " + argv.joined(separator: " ")) {
                let engine = try open()
                let (p, previous, back) = try Watch.roundParams(req)
                let d = try engine.reading(def, p) {
                    try run(req, ReportRunner(engine: engine, catalog: req.catalog), p, compare: previous, shift: back)
                }
                return out.render(d, db: nil, mask: out.revealTokens ? nil : try engine.tokenMask())
            }
        }
        for note in try engine.coverageNotes(for: req.params, report: def) { Console.err("pushlog: \(note)") }
        let mask = out.revealTokens ? nil : try engine.tokenMask()
        return try finish(req, doc, write: { try out.write($0, db: nil, mask: mask) }) {
            try engine.hasRecords(since: $0, until: $1, $2, topic: $3, env: $4)
        }
    }

    /// The report on `params`, compared with the range before when asked.
    static func run(_ req: Request, _ runner: ReportRunner, _ params: ReportParams, compare: Bool, shift: Int64) throws
        -> ResultDocument
    {
        compare
            ? try runner.runComparingPrevious(name: req.name, params: params, shift: shift)
            : try runner.run(name: req.name, params: params)
    }

    /// Where the report runs (`--clickhouse` or the SQLite database), as a function that gives
    /// the engine of a round: the same SQLite store every time, a new ClickHouse engine each call.
    static func engines(_ ctx: Context, watching: Bool) throws -> () throws -> ReportEngine {
        guard let url = ctx.clickhouse else {
            let engine = SQLiteEngine(db: try Store.openForReading(path: ctx.dbPath))
            return { engine }
        }
        let client = ClickHouseClient(url)
        guard watching else {
            // One report: the facts' check runs while the sections go out.
            return { try ClickHouseEngine(client, overlapping: true, rebuilding: Console.factsRebuildNotice) }
        }
        // A round that rebuilds the kept facts says so below the frame on screen, which the next
        // frame clears.
        let notice: (@Sendable (String) -> Void)? = Console.factsRebuildNotice.map { say in
            guard Console.stdoutIsTTY else { return say }
            return { text in
                Console.out("\n")
                say(text)
            }
        }
        return { try ClickHouseEngine(client, rebuilding: notice) }
    }

    /// Every `--fail-if` column is checked against the result before anything is printed.
    static func checkColumns(_ req: Request, _ doc: ResultDocument) throws {
        for c in req.conditions {
            for f in c.comparisons where !f.isKnown(in: doc) {
                let names = FailIf.names(in: doc)
                let guess = Arguments.closest(f.column, names)
                throw UsageError(
                    message:
                        "--fail-if: no column '\(f.column)' in the \(doc.kpis != nil ? "KPIs" : "summary") of \(req.name)",
                    hint: (guess.map { "did you mean '\($0)'? " } ?? "") + "columns: \(names.joined(separator: ", "))")
            }
        }
    }

    /// Prints the document (the section asked for) and turns the conditions into the exit status:
    /// 4 when the range holds none of the report's records, 3 when a condition holds, else 0.
    static func finish(
        _ req: Request, _ doc: ResultDocument, write: (ResultDocument) throws -> Void,
        hasRecords: (Int64, Int64, RecordEvidence, String?, String?) throws -> Bool
    ) throws -> Int32 {
        let def = req.def
        for (section, note) in def.whenEmpty where doc.section(section)?.rows.isEmpty ?? false { Console.err("pushlog: \(note)") }
        try write(try only(req.args.value("--section"), of: doc))
        if !req.conditions.isEmpty, let empty = try emptyRange(doc, def, hasRecords: hasRecords) {
            Console.err(
                "pushlog: --fail-if not checked: no \(def.records == .any ? "records" : def.records.rawValue) between \(empty)"
                    + (req.params.topic.map { " for topic \($0)" } ?? "") + (req.params.env.map { " to env \($0)" } ?? ""))
            return 4
        }
        let compared = req.conditions.flatMap(\.comparisons).map(\.column).filter { $0.hasSuffix("_prev") || $0.hasSuffix("_change") }
        if doc.previousEmpty, let column = compared.first {
            let range = ["previous_since", "previous_until"].map { n in doc.params.first { $0.0 == n }.map { plainText($0.1) } ?? "" }
            Console.err(
                "pushlog: --fail-if not checked: \(column) has no baseline, no \(def.records == .any ? "records" : def.records.rawValue) between \(range[0]) and \(range[1])"
            )
            return 4
        }
        try refuseNotObservable(req.conditions, doc: doc)
        let breached = req.conditions.filter { $0.holds(in: doc) }
        for c in breached {
            let row = c.breachingRow(in: doc) ?? 0
            let seen = c.comparisons.map { f in "\(f.column) = \(f.observed(in: doc, row: row).map(FailIf.show) ?? "null")" }
            Console.err("pushlog: --fail-if breached: \(c.source) (\(seen.joined(separator: ", ")))")
        }
        return breached.isEmpty ? 0 : 3
    }

    /// `--rule` must name one of the report's rules, and `--fail-if` on a report with rules needs
    /// it: the rules section has one row per rule, and reading the first would answer for the
    /// wrong rule.
    static func checkRule(
        _ def: ReportDefinition, params: ReportParams, conditions: [FailCondition], doc: ResultDocument,
        runner: ReportRunner
    ) throws {
        guard def.paramNames.contains("rule"), let rules = doc.section("rules") else { return }
        func ruleIDs() -> String {
            // An empty range still lists every rule.
            guard let all = try? runner.run(def, params: ReportParams(since: 0, until: 0), only: ["rules"]).section("rules"),
                let c = all.column("rule")
            else { return "" }
            return all.rows.map { plainText($0[c]) }.joined(separator: ", ")
        }
        if let rule = params.rule, rules.rows.isEmpty {
            let ids = ruleIDs()
            let guess = Arguments.closest(rule, ids.components(separatedBy: ", "))
            throw UsageError(
                message: "no rule '\(rule)' in report \(def.name)",
                hint: (guess.map { "did you mean --rule \($0)? " } ?? "") + "rules: \(ids)")
        }
        if params.rule == nil, !conditions.isEmpty, doc.section("summary") == nil, rules.rows.count > 1 {
            throw UsageError(
                message: "--fail-if on report \(def.name) needs --rule ID (one row per rule)",
                hint: "e.g. --rule non_retryable_retried --fail-if 'violations > 0'; rules: \(ruleIDs())")
        }
    }

    /// The document with only the section `name` (all of it when nil).
    static func only(_ name: String?, of doc: ResultDocument) throws -> ResultDocument {
        guard let name else { return doc }
        guard let section = doc.section(name) else {
            let names = doc.sections.map(\.name)
            let guess = Arguments.closest(name, names)
            throw UsageError(
                message: "no section '\(name)' in report \(doc.report)",
                hint: (guess.map { "did you mean --section \($0)? " } ?? "") + "sections: \(names.joined(separator: ", "))")
        }
        var one = doc
        one.sections = [section]
        return one
    }

    /// The report's range as text when it holds none of the records the report is about: a
    /// threshold over no data is neither a pass nor a breach (a stopped pusher is not healthy).
    static func emptyRange(
        _ doc: ResultDocument, _ def: ReportDefinition, hasRecords: (Int64, Int64, RecordEvidence, String?, String?) throws -> Bool
    ) throws -> String? {
        func time(_ name: String) -> Int64? {
            guard let v = doc.params.first(where: { $0.0 == name })?.1, case .text(let t) = v else { return nil }
            return TimeArgument.parse(t)
        }
        let since = time("since") ?? Int64.min, until = time("until") ?? Int64.max
        func text(_ name: String) -> String? {
            if case .text(let t)? = doc.params.first(where: { $0.0 == name })?.1 { return t }
            return nil
        }
        guard try !hasRecords(since, until, def.records, text("topic"), text("env")) else { return nil }
        func show(_ t: Int64, _ open: String) -> String { t == .min || t == .max ? open : TimeFormat.rfc3339(ms: t) }
        return "\(show(since, "the start")) and \(show(until, "the end"))"
    }

    /// A condition on a figure the records cannot show, or on a cell that holds text instead of a
    /// number (`not observable`), can be neither a pass nor a breach: exit 1 rather than 0.
    static func refuseNotObservable(_ conditions: [FailCondition], doc: ResultDocument) throws {
        // A figure the range's records cannot show (an env, a token, registrations the logs lack).
        for f in conditions.flatMap(\.comparisons) {
            guard let why = doc.unobservable[f.column] else { continue }
            Console.err("pushlog: --fail-if cannot be checked: \(f.column) is not observable (\(why))")
            throw ExitStatus(code: 1)
        }
        let section = doc.section("summary") ?? doc.sections.first
        for f in conditions.flatMap(\.comparisons) where doc.kpis == nil {
            guard let cell = section?.first(f.column), case .text(let text) = cell, Double(text) == nil else { continue }
            let detail = section?.first("detail").map(plainText) ?? ""
            let rule = section?.first("rule").map { " of rule " + plainText($0) } ?? ""
            Console.err("pushlog: --fail-if cannot be checked: \(f.column)\(rule) is '\(text)'" + (detail.isEmpty ? "" : " (\(detail))"))
            throw ExitStatus(code: 1)
        }
    }

    /// The command's help, and for `report NAME --help` the parameters NAME's header declares:
    /// type, default, allowed values and help.
    static func help(for argv: [String]) -> String {
        let (name, queries) = reportAndQueries(argv)
        guard let name,
            let catalog = try? QueryCatalog(userDirectory: queries ?? ProcessInfo.processInfo.environment["PUSHLOG_QUERIES"]),
            let def = catalog.report(name)
        else { return help }
        var s = help + "\nREPORT \(def.name):\n  \(def.title). \(def.description)\n\nPARAMETERS OF \(def.name):\n"
        if def.params.isEmpty { s += "  none\n" }
        for p in def.params {
            let left = "  --\(p.name) \(p.type.allowed == nil ? p.type.description.uppercased() : "VALUE")"
            var right = p.help
            if let d = p.defaultValue { right += (right.isEmpty ? "" : " ") + "(default \(d))" }
            s += left.padding(toLength: max(left.count + 2, 21), withPad: " ", startingAt: 0) + right + "\n"
            if let allowed = p.type.allowed { s += String(repeating: " ", count: 21) + "one of: " + allowed.joined(separator: ", ") + "\n" }
        }
        return s
    }

    /// Each own parameter given, checked against its declared type and bound as that type.
    static func parseOwnParams(_ args: Arguments, _ def: ReportDefinition, into params: inout ReportParams) throws {
        for param in def.ownParams {
            guard let text = args.value("--" + param.name) else { continue }
            guard let value = param.bound(text) else {
                let example: String
                switch param.type {
                case .oneOf(let values): example = "one of: " + values.joined(separator: ", ")
                case .int: example = "a whole number"
                case .time: example = "a time (RFC 3339, 2026-11-02, -2h, 7d, …)"
                case .week: example = "an ISO week such as 2026-W47"
                case .text: example = "text"
                }
                throw UsageError(
                    message: "report \(def.name): --\(param.name) expects \(example), got '\(text)'",
                    hint: "pushlog report \(def.name) --help")
            }
            params.own[param.name] = value
        }
    }

    /// The report named and the `--queries` folder, wherever they stand among the options.
    static func reportAndQueries(_ argv: [String]) -> (name: String?, queries: String?) {
        let valued = Set(optionTable.valued)
        var name: String?
        var queries: String?
        var i = 0
        while i < argv.count {
            let a = argv[i]
            if a.hasPrefix("--queries=") {
                queries = String(a.dropFirst("--queries=".count))
            } else if a == "--queries" {
                queries = i + 1 < argv.count ? argv[i + 1] : nil
                i += 1
            } else if a.hasPrefix("-") {
                // An option not in the table is a report's own parameter (or a typo the parse
                // refuses), which takes a value, unless an option follows (`--help --queries`).
                let own =
                    a.hasPrefix("--") && !a.contains("=") && !optionTable.boolean.contains(a) && a != "--help"
                    && i + 1 < argv.count && !argv[i + 1].hasPrefix("--")
                if valued.contains(a) || own { i += 1 }
            } else if name == nil {
                name = a
            }
            i += 1
        }
        return (name, queries)
    }

    /// A parameter option the report does not declare is a usage error, with the likely fix.
    static func refuseUndeclared(_ args: Arguments, _ def: ReportDefinition) throws {
        let declared = Set(def.paramNames)
        for flag in parameterOptions where args.value(flag) != nil && !declared.contains(String(flag.dropFirst(2))) {
            let takes = def.paramNames.map { "--" + $0 }
            var hint = "report \(def.name) takes: \(takes.isEmpty ? "no options but the output ones" : takes.joined(separator: ", "))"
            if flag == "--since" || flag == "--until", declared.contains("week") {
                hint = "did you mean `--week 2026-W47`? " + hint
            } else if flag == "--week", declared.contains("since") {
                let w = args.value("--week") ?? "2026-W47"
                hint = "did you mean `--since \(w) --until` the week after? " + hint
            }
            throw UsageError(message: "report \(def.name) does not take \(flag)", hint: hint)
        }
        // Values a header lists (`-- param: by enum(...)`) are the only ones the option takes.
        for param in def.params {
            guard let value = args.value("--" + param.name), let allowed = param.type.allowed, !allowed.contains(value) else { continue }
            throw UsageError(
                message: "report \(def.name) does not take --\(param.name) \(value)", hint: "use one of: \(allowed.joined(separator: ", "))"
            )
        }
    }

    static func parseParams(_ args: Arguments) throws -> ReportParams {
        var p = ReportParams()
        (p.since, p.until) = try TimeRangeOptions.read(args)
        p.by = args.value("--by")  // checked against the report's declared values
        p.topic = args.value("--topic")
        // Any env a log names (`staging` too, as --by env shows it); one never seen is said on
        // stderr with the envs that were.
        if let e = args.value("--env") {
            guard !e.isEmpty else { throw UsageError(message: "--env needs a name", hint: "e.g. --env production") }
            p.env = e == "development" ? "sandbox" : e
        }
        if let b = try args.int("--budget", command: name) { p.budget = Int64(b) }
        p.unit = args.value("--unit")
        p.rule = args.value("--rule")
        if let w = args.value("--week") {
            guard TimeArgument.week(w) != nil else {
                throw UsageError(message: "cannot read --week '\(w)'", hint: "use an ISO week such as 2026-W47")
            }
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
    static let optionTable = OptionTable(
        [
            .value("--queries", placeholder: "DIR", help: "also list reports from DIR/*.sql (default: $PUSHLOG_QUERIES)"),
            .value("--format", placeholder: "FMT", help: "table, csv, tsv, json, ndjson, markdown, html"),
        ],
        unlisted: OptionTable.output)

    static func run(_ argv: [String], _ ctx: Context) throws -> Int32 {
        let args = try Arguments(argv, command: name, table: optionTable)
        try args.allowPositionals(0, command: name)
        let out = try OutputTarget(args)
        let catalog = try QueryCatalog(userDirectory: args.value("--queries") ?? ProcessInfo.processInfo.environment["PUSHLOG_QUERIES"])
        var t = ResultTable(name: "reports", columns: ["name", "title", "parameters", "sections", "description", "origin"])
        for r in catalog.reports {
            t.rows.append([
                .text(r.name), .text(r.title), .text(r.paramNames.joined(separator: " ")),
                .text(ReportRunner.sectionNames(r).joined(separator: " ")), .text(r.description), .text(r.origin),
            ])
        }
        try out.write(ResultDocument(report: "reports", sections: [t]), db: nil)
        return 0
    }
}

/// A cell as plain text (for messages).
private func plainText(_ v: SQLValue) -> String {
    switch v {
    case .null: return ""
    case .int(let i): return String(i)
    case .double(let d): return String(d)
    case .text(let s): return s
    }
}
