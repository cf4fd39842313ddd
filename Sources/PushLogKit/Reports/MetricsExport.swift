import Foundation

/// One metric family of the OpenMetrics / Prometheus text exposition: every sample is a gauge
/// (counts over the chosen window, not ever-growing counters, so the same text is valid for both
/// the Prometheus 0.0.4 and the OpenMetrics parsers).
public struct MetricFamily: Sendable {
    var name: String
    var help: String
    var samples: [(labels: [(String, String)], value: Double)]

    init(name: String, help: String, samples: [(labels: [(String, String)], value: Double)] = []) {
        self.name = name
        self.help = help
        self.samples = samples
    }
}

/// The KPIs of `pushlog metrics`: responses and 410s by topic and env, the gone rate, the accepted
/// share, errors by category, the over-budget background share, mismatched sends, the turn-off
/// rate, rejected lines and the age of the newest record. The figures that reports also give
/// (gone rate, accepted share, mismatched sends, over-budget share) are taken from those reports,
/// so the two always agree.
/// The counts come from the `metrics` statements of either engine (SQLiteCommandQueries,
/// Queries/clickhouse/metrics.sql), the rates from the engine's reports.
public struct MetricsExport {
    let engine: CommandEngine

    public init(engine: CommandEngine) { self.engine = engine }

    /// The record kinds whose newest time is exported, in order.
    public static let kinds = ["send", "request", "response", "register", "settings", "receipt", "unregister"]

    /// The families over [since, until) (nil: all records); `now` is epoch ms.
    public func collect(
        since: Int64?, until: Int64? = nil, budget: Int64 = 3,
        now: Int64 = Int64(Date().timeIntervalSince1970 * 1000)
    ) throws -> [MetricFamily] {
        let window: [String: SQLValue] = ["since": .int(since ?? Int64.min), "until": .int(until ?? Int64.max)]
        var out: [MetricFamily] = []
        func text(_ v: SQLValue) -> String { if case .text(let s) = v { s } else { "" } }
        func number(_ v: SQLValue) -> Double { v.asDouble ?? 0 }

        // Responses by topic and env (a response: a send or response record with a status).
        var responses = MetricFamily(name: "pushlog_responses", help: "APNs responses in the window, by topic and env")
        var accepted = MetricFamily(
            name: "pushlog_accepted_responses", help: "Accepted (200) APNs responses in the window, by topic and env")
        var gone = MetricFamily(name: "pushlog_gone_responses", help: "410 (token gone) APNs responses in the window, by topic and env")
        var total = (responses: 0.0, accepted: 0.0, gone: 0.0)
        var counted: [[String]: (Double, Double, Double)] = [:]
        for row in try engine.statement("metrics", "responses", window).rows {
            let r = number(row[2]), a = number(row[3]), g = number(row[4])
            counted[[text(row[0]), text(row[1])]] = (r, a, g)
            total.responses += r; total.accepted += a; total.gone += g
        }
        // Every topic and env ever answered has its series, 0 over a window without responses:
        // an alert on a stopped pusher sees 0, not a series that vanished.
        let known = try engine.statement("metrics", "pairs").rows.map { [text($0[0]), text($0[1])] }
        let pairs = Set(known).union(counted.keys).sorted { $0.lexicographicallyPrecedes($1) }
        for pair in pairs {
            let labels = [("topic", pair[0]), ("env", pair[1])]
            let (r, a, g) = counted[pair] ?? (0, 0, 0)
            responses.samples.append((labels, r)); accepted.samples.append((labels, a)); gone.samples.append((labels, g))
        }
        out += [responses, accepted, gone]
        // The rates are the reports' own figures (as rounded there), left out when nothing was
        // answered in the window: an absent series, not 0.
        let params = ReportParams(since: since, until: until, budget: budget)
        // A report's figure the window's records cannot show has no series (NeedCoverage).
        var coverage: NeedCoverage?
        func observed(_ report: String, _ name: String, params: ReportParams) throws -> ResultTable? {
            guard let t = try engine.reportSection(report, name, params: params) else { return nil }
            var doc = ResultDocument(report: report, sections: [t])
            guard NeedCoverage.matters(doc) else { return t }
            if coverage == nil { coverage = try engine.needs(since: params.bounds.since, until: params.bounds.until, topic: nil, env: nil) }
            coverage?.apply(to: &doc)
            return doc.sections[0]
        }
        if total.responses > 0 {
            if let v = try observed("gone", "summary", params: params)?.first("gone_rate")?.asDouble {
                out.append(
                    MetricFamily(
                        name: "pushlog_gone_rate", help: "410 responses / responses in the window (gone report)", samples: [([], v)]))
            }
            if let v = try observed("weekly", "basics", params: params)?.first("accepted_share")?.asDouble {
                out.append(
                    MetricFamily(
                        name: "pushlog_accepted_share", help: "Accepted (200) responses / responses in the window (weekly report)",
                        samples: [([], v)]))
            }
        }

        var errors = MetricFamily(
            name: "pushlog_error_responses", help: "Non-accepted APNs responses in the window, by topic, env and APNs reason category")
        var failed: [[String]: Double] = [:]
        for row in try engine.statement("metrics", "errors", window).rows {
            failed[[text(row[0]), text(row[1]), text(row[2])]] = number(row[3])
        }
        // Each known topic and env with every category an APNs answer can fall in, 0 when none did.
        let categories = ReasonCategory.allCases.map(\.rawValue).filter { $0 != "accepted" && $0 != "transport" }
        var keys = Set(failed.keys)
        for pair in pairs { for c in categories { keys.insert(pair + [c]) } }
        for k in keys.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            errors.samples.append(([("topic", k[0]), ("env", k[1]), ("category", k[2])], failed[k] ?? 0))
        }
        out.append(errors)

        // From the reports themselves.
        if let s = try observed("silent", "summary", params: params) {
            if let v = s.first("over_budget_share")?.asDouble {
                out.append(
                    MetricFamily(
                        name: "pushlog_background_over_budget_share",
                        help:
                            "Accepted background pushes over \(budget) per token and clock hour / accepted background pushes (silent report)",
                        samples: [([], v)]))
            }
            if let v = s.first("over_budget_sends")?.asDouble {
                out.append(
                    MetricFamily(
                        name: "pushlog_background_over_budget_sends",
                        help: "Accepted background pushes over \(budget) per token and clock hour (silent report)", samples: [([], v)]))
            }
            if let v = s.first("too_many_requests")?.asDouble {
                out.append(
                    MetricFamily(name: "pushlog_too_many_requests", help: "429 TooManyRequests responses in the window", samples: [([], v)])
                )
            }
        }
        if let v = try observed("env-mismatch", "summary", params: params)?.first("mismatched_sends")?.asDouble {
            out.append(
                MetricFamily(
                    name: "pushlog_mismatched_sends",
                    help: "Responses sent to the APNs env other than the token's registered env (env-mismatch report)", samples: [([], v)]))
        }

        // The opt-out report's age-invariant turn-off rate: of the devices opted in and still on at
        // the window's start, the share that turned notifications off in it (needs --since).
        if since != nil, let v = try observed("opt-out", "turn_off_rate", params: params)?.first("turn_off_rate")?.asDouble {
            out.append(
                MetricFamily(
                    name: "pushlog_turn_off_rate",
                    help:
                        "Devices opted in and on at the window's start that turned notifications off in it / those devices (opt-out report)",
                    samples: [([], v)]))
        }

        out.append(
            MetricFamily(
                name: "pushlog_rejected_lines", help: "Rejected input lines stored in the database (all time; see pushlog rejects)",
                samples: [([], Double(try engine.count("metrics", "rejected")))]))
        // Per kind: sends of one kind stopping while the app's registrations go on is the failure to
        // see, and a single newest-of-all would hide it.
        var newest = MetricFamily(
            name: "pushlog_newest_record_timestamp_seconds", help: "Time of the newest record of each kind in the database (Unix seconds)")
        var age = MetricFamily(
            name: "pushlog_seconds_since_newest_record", help: "Seconds from the newest record of each kind to now: the ingest lag per kind"
        )
        let newestByKind = try engine.statement("metrics", "newest")
        for kind in MetricsExport.kinds {
            guard let row = newestByKind.rows.first, let i = newestByKind.column(kind), case .int(let t) = row[i] else { continue }
            newest.samples.append(([("kind", kind)], Double(t) / 1000))
            age.samples.append(([("kind", kind)], Double(now - t) / 1000))
        }
        if !newest.samples.isEmpty { out += [newest, age] }
        if let since {
            out.append(
                MetricFamily(
                    name: "pushlog_window_start_timestamp_seconds", help: "Start of the window the counts cover (--since, Unix seconds)",
                    samples: [([], Double(since) / 1000)]))
        }
        return out
    }
}
