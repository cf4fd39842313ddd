import Foundation
import PushLogKit

/// `pushlog explain`: the catalog's `explain` report over a window and its baseline, told as a
/// few sentences and two tables (or its sections, with `--format`). The report's header owns the
/// metrics and baselines; this file only maps the options and tells the result.
enum ExplainCommand: Command {
    static let name = "explain"
    static let summary = "What changed in a window against its baseline: where, since when, what to trace."
    static let usage =
        "pushlog explain (--at TIME | --since TIME [--until TIME]) [--baseline previous|week] [--metric M] [--format FMT]"
    static let report = "explain"
    static let optionTable = OptionTable(
        column: 21,
        [
            .value(
                "--at", placeholder: "TIME", help: "the hour around TIME (from 30 minutes before it, in whole 5 minutes);",
                "TIME: RFC 3339, 2026-11-02 14:30, epoch s/ms, -2h, ..."),
            .value("--since", placeholder: "TIME", help: "start of the window, inclusive"),
            .value("--until", placeholder: "TIME", help: "end of the window, exclusive (default: now)"),
            .value(
                "--baseline", placeholder: "previous|week", help: "compare with the same length just before (default), or",
                "the same window a week earlier"),
            .value(
                "--metric", placeholder: "M", help: "errors (default), gone (410), volume (responses), throttled (429),",
                "latency (slower than the baseline's 95th percentile)"),
            .value(
                "--format", placeholder: "FMT", help: "the sections as table, csv, tsv, json, ndjson, markdown, html",
                "(default: a short account)"),
            .value("-o", placeholder: "FILE", help: "write to FILE (format from its extension)"),
            .flag("--reveal-tokens", help: "show device tokens in full"),
        ],
        unlisted: OptionTable.output,
        notes: "\nExit status 4: the window, or its baseline, holds no responses to compare.\n")

    /// The window the options name, and the report's parameters for it.
    static func params(_ args: Arguments, _ def: ReportDefinition, now: Int64) throws -> ReportParams {
        var p = ReportParams()
        if let at = try TimeRangeOptions.time(args, "--at") {
            guard args.value("--since") == nil, args.value("--until") == nil else {
                throw UsageError(message: "--at names the window; not with --since/--until", hint: "pushlog explain --at 2026-11-24T14:30Z")
            }
            // The hour around the moment, on 5-minute bounds so its buckets are `report --by 5m`'s.
            (p.since, p.until) = ExplainWindow.around(at)
        } else {
            (p.since, p.until) = try TimeRangeOptions.read(args, word: "window")
            guard p.since != nil else {
                throw UsageError(
                    message: "explain needs a window: --at TIME or --since TIME", hint: "pushlog explain --at 2026-11-24T14:30Z")
            }
            if p.until == nil { p.until = now }
        }
        // The report finds the onset in at most 92 daily buckets (and has no row beyond).
        if let since = p.since, let until = p.until, until - since > 92 * 86_400_000 {
            throw UsageError(message: "explain compares windows of up to 92 days", hint: "narrow --since/--until")
        }
        for option in ["metric", "baseline"] {
            guard let text = args.value("--" + option), let param = def.parameter(option) else { continue }
            guard let value = param.bound(text) else {
                throw UsageError(
                    message: "explain does not take --\(option) \(text)",
                    hint: "use one of: \((param.type.allowed ?? []).joined(separator: ", "))")
            }
            p.own[option] = value
        }
        return p
    }

    static func run(_ argv: [String], _ ctx: Context) throws -> Int32 {
        let args = try Arguments(argv, command: name, table: optionTable)
        try args.allowPositionals(0, command: name, timeOption: "--at")
        let explainsInSentences = args.value("--format") == nil && args.value("-o") == nil && args.value("--output") == nil
        let out = try OutputTarget(args, defaultFormat: .table)
        let catalog = try QueryCatalog()
        guard let def = catalog.report(report) else { throw CLIError("the built-in report \(report) is missing") }
        let params = try params(args, def, now: Int64(Date().timeIntervalSince1970 * 1000))
        // The SQLite database or the ClickHouse server, as `report` reads them.
        let engine = try ReportCommand.engines(ctx, watching: false)()
        let runner = ReportRunner(engine: engine, catalog: catalog)
        let doc = try engine.reading(def, params) { try runner.run(name: report, params: params) }
        if let refusal = emptyComparison(doc) {
            Console.err("pushlog: explain: \(refusal)")
            return 4
        }
        let mask = out.revealTokens ? nil : try engine.tokenMask()
        if explainsInSentences {
            Pager.write(Account(doc: doc, mask: mask, color: out.color).text, enabled: out.pager)
        } else {
            try out.write(doc, db: nil, mask: mask)
        }
        return 0
    }

    /// Why the window cannot be compared (nothing in it, or nothing in its baseline), or nil.
    static func emptyComparison(_ doc: ResultDocument) -> String? {
        guard let summary = doc.section("summary") else { return "the report gave no summary" }
        func int(_ c: String) -> Int64 { if case .int(let v)? = summary.first(c) { return v } else { return 0 } }
        func text(_ c: String) -> String { if case .text(let v)? = summary.first(c) { return v } else { return "?" } }
        let records = text("metric") == "latency" ? "responses with a latency" : "responses"
        if int("window_records") == 0 { return "no \(records) between \(text("since")) and \(text("until")): nothing to explain" }
        if int("baseline_records") == 0 {
            return "no \(records) in the baseline, \(text("baseline_since")) to \(text("baseline_until")) "
                + "(\(text("baseline"))): nothing to compare with; try --baseline \(text("baseline") == "week" ? "previous" : "week")"
        }
        return nil
    }
}

/// The account `explain` prints on a terminal: what moved, where, since when, what to run next;
/// fits 80 columns.
struct Account {
    let doc: ResultDocument
    let mask: TokenMask?
    let color: Bool

    var text: String {
        guard let summary = doc.section("summary") else { return "" }
        func cell(_ t: ResultTable?, _ c: String, _ row: Int = 0) -> SQLValue {
            guard let t, let i = t.column(c), row < t.rows.count else { return .null }
            return t.rows[row][i]
        }
        func text(_ v: SQLValue) -> String {
            switch v {
            case .null: return ""
            case .int(let i): return String(i)
            case .double(let d): return String(format: "%.2f", d)
            case .text(let s): return mask?.maskText(s) ?? s
            }
        }
        func percent(_ v: SQLValue) -> String {
            if case .double(let d) = v { return String(format: "%.1f %%", d * 100) }
            if case .int(let i) = v { return "\(i * 100) %" }
            return "n/a"
        }
        let metric = text(cell(summary, "metric"))
        let counted =
            ["errors": "errors", "gone": "410s", "volume": "responses", "throttled": "429s", "latency": "slow responses"][metric] ?? metric
        var s = "\(metric) from \(text(cell(summary, "since"))) to \(text(cell(summary, "until")))\n"
        s += "  against \(text(cell(summary, "baseline_since"))) to \(text(cell(summary, "baseline_until")))"
        s += " (\(text(cell(summary, "baseline"))))\n"
        let rates = metric == "volume" ? "" : " in \(text(cell(summary, "window_records"))) (\(percent(cell(summary, "window_rate"))))"
        let baseRates =
            metric == "volume" ? "" : " in \(text(cell(summary, "baseline_records"))) (\(percent(cell(summary, "baseline_rate"))))"
        s += "  \(text(cell(summary, "window_count"))) \(counted)\(rates); baseline \(text(cell(summary, "baseline_count")))\(baseRates)"
        s += ": \(text(cell(summary, "verdict")))\n"
        if case .text(let headline) = cell(summary, "headline") { s += "  \(headline)\n" }
        if case .text(let onset) = cell(summary, "onset") {
            s += "  Onset of the top segment: the bucket from \(onset)\n"
        } else {
            s += "  Onset: no bucket left the baseline\n"
        }
        let onset = doc.section("onset")
        for row in 0..<(onset?.rows.count ?? 0) where text(cell(onset, "what", row)) == "last record" {
            s +=
                "  Stopped: \(text(cell(onset, "source", row))), last record \(text(cell(onset, "at", row))) line \(text(cell(onset, "line", row)))\n"
        }
        if case .text(let command) = cell(summary, "over_time") { s += "  Over time:\n" + Account.command(command, indent: "    ") }
        if let segments = doc.section("segments"), !segments.rows.isEmpty {
            s += "\nWhere the change is (share of the change; lift: rate now / rate before):\n"
            var t = ResultTable(name: "segments", columns: ["segment", "now", "before", "share", "lift"])
            for r in 0..<min(segments.rows.count, 10) {
                let lift = cell(segments, "lift", r)
                t.rows.append([
                    .text(text(cell(segments, "segment", r))), cell(segments, "window_count", r), cell(segments, "baseline_count", r),
                    .text(percent(cell(segments, "contribution", r))), lift == .null ? .text("new") : .text(text(lift)),
                ])
            }
            s += OutputFormat.table.render(ResultDocument(report: "explain", sections: [t]), terminalWidth: 80, color: color)
        }
        let dimensions = doc.section("dimensions")
        let unranked = (0..<(dimensions?.rows.count ?? 0)).compactMap { r -> String? in
            let status = text(cell(dimensions, "status", r))
            return status == "ranked" ? nil : "  \(text(cell(dimensions, "dimension", r))): \(status)"
        }
        if !unranked.isEmpty { s += "\nNot ranked:\n" + unranked.joined(separator: "\n") + "\n" }
        if let first = doc.section("first_records"), !first.rows.isEmpty {
            s += "\nFirst records of the top segment:\n"
            for r in 0..<first.rows.count {
                let source = text(cell(first, "source", r)).split(separator: "/").last.map(String.init) ?? ""
                s += "  \(text(cell(first, "time", r)))  \(text(cell(first, "status", r))) \(text(cell(first, "reason", r)))\n"
                s += "    \(source):\(text(cell(first, "line", r)))\n"
                s += Account.command(text(cell(first, "trace", r)), indent: "    ")
            }
        }
        return s.split(separator: "\n", omittingEmptySubsequences: false).map { Account.wrapped(String($0)) }.joined(separator: "\n")
    }

    static let width = 80

    /// A line cut at spaces to the width, the rest indented under its start (a word longer than
    /// the width stays whole).
    static func wrapped(_ line: String) -> String {
        guard line.count > width else { return line }
        let indent = String(line.prefix { $0 == " " }) + "  "
        var out = "", current = ""
        for word in line.split(separator: " ", omittingEmptySubsequences: true) {
            let start = current.isEmpty ? (out.isEmpty ? String(line.prefix { $0 == " " }) : indent) : current + " "
            if !current.isEmpty && (start + word).count > width {
                out += current + "\n"
                current = indent + word
            } else {
                current = start + word
            }
        }
        return out + current
    }

    /// A command to paste, cut before its options with shell continuations to fit the width.
    static func command(_ command: String, indent: String) -> String {
        var lines: [String] = []
        var current = indent
        for part in command.components(separatedBy: " --") {
            let piece = current == indent ? part : "--" + part
            if current != indent && (current + " " + piece).count > width - 2 {
                lines.append(current + " \\")
                current = indent + "  " + piece
            } else {
                current += (current == indent ? "" : " ") + piece
            }
        }
        return (lines + [current]).joined(separator: "\n") + "\n"
    }
}
