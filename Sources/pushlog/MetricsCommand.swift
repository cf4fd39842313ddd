import Foundation
import PushLogKit

/// `pushlog metrics`
enum MetricsCommand: Command {
    static let name = "metrics"
    static let summary = "The KPIs as OpenMetrics/Prometheus text (for node_exporter's textfile collector)."
    static let usage = "pushlog metrics [--since TIME] [--until TIME] [--budget N] [-o FILE]"
    static let optionTable = OptionTable(
        [
            .value("--since", placeholder: "TIME", help: "count records from TIME (default: all records), e.g. --since 1h"),
            .value("--until", placeholder: "TIME", help: "up to TIME, exclusive (default: no end)"),
            .value("--budget", placeholder: "N", help: "background pushes per token-hour for the over-budget share (default 3)"),
            .value(
                "-o", placeholder: "FILE", help: "write FILE atomically (temporary file + rename, mode 0644), e.g.",
                "/var/lib/node_exporter/textfile/pushlog.prom"),
        ],
        unlisted: OptionSpec.unlisted(values: ["--output"]),
        notes: """

            Every metric is a gauge over the window; rates are fractions in [0, 1] and are absent when
            their denominator is 0. Counts of every topic, env and APNs category ever seen read 0 over
            a window without them. pushlog_seconds_since_newest_record{kind="send"} (and "response",
            "register", ...) is the age of each kind's newest record: alert on the sends' own.

            """)

    /// What a `metrics` command line asks for.
    struct Request {
        let args: Arguments
        let since: Int64?
        let until: Int64?
        let budget: Int64
    }

    static func parse(_ argv: [String]) throws -> Request {
        let args = try Arguments(argv, command: name, table: optionTable)
        if let stray = args.positionals.first {
            throw UsageError(message: "metrics takes no argument '\(stray)'", hint: "pushlog metrics --since 1h -o pushlog.prom")
        }
        let (since, until) = try TimeRangeOptions.read(args, word: "window")
        let budget = try args.int("--budget", command: name) ?? 3
        return Request(args: args, since: since, until: until, budget: Int64(budget))
    }

    static func run(_ argv: [String], _ ctx: Context) throws -> Int32 {
        let req = try parse(argv)
        let engine = try CommandEngines.open(ctx, reads: .facts)
        // One snapshot for every family: the figures of one scrape agree while an ingest commits.
        let families = try engine.consistent {
            try MetricsExport(engine: engine).collect(since: req.since, until: req.until, budget: req.budget)
        }
        // As OpenMetrics text, to `-o FILE` (atomically) or stdout.
        let text = OpenMetricsRenderer.render(families)
        if let path = req.args.value("-o") ?? req.args.value("--output") {
            // Metrics hold no token or user: readable by the collector's user.
            try AtomicFile.write(text, to: path, mode: 0o644)
        } else {
            Console.out(text)
        }
        return 0
    }
}
