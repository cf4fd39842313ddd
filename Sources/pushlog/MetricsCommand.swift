import Foundation
import PushLogKit

/// `pushlog metrics`
enum MetricsCommand: Command {
    static let name = "metrics"
    static let summary = "The KPIs as OpenMetrics/Prometheus text (for node_exporter's textfile collector)."
    static let usage = "pushlog metrics [--since TIME] [--until TIME] [--budget N] [-o FILE]"
    static let options = """
          --since TIME     count records from TIME (default: all records), e.g. --since 1h
          --until TIME     up to TIME, exclusive (default: no end)
          --budget N       background pushes per token-hour for the over-budget share (default 3)
          -o FILE          write FILE atomically (temporary file + rename, mode 0644), e.g.
                           /var/lib/node_exporter/textfile/pushlog.prom

        Every metric is a gauge over the window; rates are fractions in [0, 1] and are absent when
        their denominator is 0. Counts of every topic, env and APNs category ever seen read 0 over
        a window without them. pushlog_seconds_since_newest_record{kind="send"} (and "response",
        "register", ...) is the age of each kind's newest record: alert on the sends' own.

        """

    static func run(_ argv: [String], _ ctx: Context) throws -> Int32 {
        let args = try Arguments(argv, command: name, valued: ["--since", "--until", "--budget", "-o", "--output"], boolean: [])
        if let stray = args.positionals.first {
            throw UsageError(message: "metrics takes no argument '\(stray)'", hint: "pushlog metrics --since 1h -o pushlog.prom")
        }
        func time(_ flag: String) throws -> Int64? {
            guard let v = args.value(flag) else { return nil }
            guard let t = TimeArgument.parse(v) else {
                throw UsageError(
                    message: "cannot read \(flag) '\(v)'",
                    hint: "TIME is RFC 3339, 2026-11-02, 2026-W45, epoch, now, today, yesterday or -2h/7d/90m")
            }
            return t
        }
        let since = try time("--since"), until = try time("--until")
        if let since, let until, since >= until {
            throw UsageError(message: "--since must be before --until", hint: "the window is [since, until)")
        }
        let budget = try args.int("--budget", command: name) ?? 3
        let db = try Store.openForReading(path: ctx.dbPath)
        // One snapshot for every family: the figures of one scrape agree while an ingest commits.
        let families = try db.readSnapshot { try MetricsExport(db: db).collect(since: since, until: until, budget: Int64(budget)) }
        let text = OpenMetricsRenderer.render(families)
        if let path = args.value("-o") ?? args.value("--output") {
            // Metrics hold no token or user: readable by the collector's user.
            try AtomicFile.write(text, to: path, mode: 0o644)
        } else {
            Console.out(text)
        }
        return 0
    }
}
