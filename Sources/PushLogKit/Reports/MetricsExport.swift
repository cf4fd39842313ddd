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

/// Where the figures of `pushlog metrics` come from: the SQLite database's tables and reports
/// (`SQLiteMetricsSource`), or a ClickHouse server's (`ClickHouseMetricsSource`). Each gives plain
/// counts; MetricsExport makes the families, so both engines print the same text.
public protocol MetricsSource {
    /// Responses in [since, until) by topic and env ('(none)' when absent): columns topic, env,
    /// responses, accepted (200), gone (410).
    func responses(since: Int64, until: Int64) throws -> ResultTable
    /// Every (topic, env) that ever had a response, named as `responses` names them.
    func knownPairs() throws -> ResultTable
    /// Non-accepted responses in [since, until) by topic, env and APNs category ('unknown' when
    /// none): columns topic, env, category, responses.
    func errors(since: Int64, until: Int64) throws -> ResultTable
    /// The APNs categories an answer can fall in (not accepted, not transport).
    func categories() throws -> [String]
    /// Rejected input lines stored, all time.
    func rejectedLines() throws -> Int64
    /// The time (ms) of each kind's newest record, in MetricsExport.kinds order, for the kinds that have one.
    func newest() throws -> [(String, Int64)]
    /// One section of a report's run on `params`, as that report prints it; nil when the engine has none.
    func reportSection(_ report: String, _ section: String, params: ReportParams) throws -> ResultTable?
    /// How many of [since, until)'s records carry what figures need (DataCoverage's count).
    func needs(since: Int64, until: Int64) throws -> NeedCoverage
}

/// The KPIs of `pushlog metrics`: responses and 410s by topic and env, the gone rate, the accepted
/// share, errors by category, the over-budget background share, mismatched sends, the turn-off
/// rate, rejected lines and the age of the newest record. The figures that reports also give
/// (gone rate, accepted share, mismatched sends, over-budget share) are taken from those reports,
/// so the two always agree.
public struct MetricsExport {
    let source: MetricsSource

    public init(db: Database, catalog: QueryCatalog? = nil) throws {
        source = try SQLiteMetricsSource(db: db, catalog: catalog)
    }

    public init(source: MetricsSource) { self.source = source }

    /// The record kinds whose newest time is exported, in order.
    public static let kinds = ["send", "request", "response", "register", "settings", "receipt", "unregister"]

    /// The families over [since, until) (nil: all records); `now` is epoch ms.
    public func collect(
        since: Int64?, until: Int64? = nil, budget: Int64 = 3,
        now: Int64 = Int64(Date().timeIntervalSince1970 * 1000)
    ) throws -> [MetricFamily] {
        let lo = since ?? Int64.min, hi = until ?? Int64.max
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
        for row in try source.responses(since: lo, until: hi).rows {
            let r = number(row[2]), a = number(row[3]), g = number(row[4])
            counted[[text(row[0]), text(row[1])]] = (r, a, g)
            total.responses += r; total.accepted += a; total.gone += g
        }
        // Every topic and env ever answered has its series, 0 over a window without responses:
        // an alert on a stopped pusher sees 0, not a series that vanished.
        let known = try source.knownPairs().rows.map { [text($0[0]), text($0[1])] }
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
            guard let t = try source.reportSection(report, name, params: params) else { return nil }
            var doc = ResultDocument(report: report, sections: [t])
            guard NeedCoverage.matters(doc) else { return t }
            if coverage == nil { coverage = try source.needs(since: params.bounds.since, until: params.bounds.until) }
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
        for row in try source.errors(since: lo, until: hi).rows {
            failed[[text(row[0]), text(row[1]), text(row[2])]] = number(row[3])
        }
        // Each known topic and env with every category an APNs answer can fall in, 0 when none did.
        let categories = try source.categories()
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
                samples: [([], Double(try source.rejectedLines()))]))
        // Per kind: sends of one kind stopping while the app's registrations go on is the failure to
        // see, and a single newest-of-all would hide it.
        var newest = MetricFamily(
            name: "pushlog_newest_record_timestamp_seconds", help: "Time of the newest record of each kind in the database (Unix seconds)")
        var age = MetricFamily(
            name: "pushlog_seconds_since_newest_record", help: "Seconds from the newest record of each kind to now: the ingest lag per kind"
        )
        for (kind, t) in try source.newest() {
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

/// The metrics' figures from a SQLite database: its tables, and its reports run by ReportRunner.
public struct SQLiteMetricsSource: MetricsSource {
    let runner: ReportRunner
    let db: Database

    public init(db: Database, catalog: QueryCatalog? = nil) throws {
        self.db = db
        runner = try ReportRunner(db: db, catalog: catalog)
    }

    func table(_ sql: String, _ values: [Int64] = []) throws -> ResultTable {
        let s = try db.prepare(sql)
        for (i, v) in values.enumerated() { s.bind(Int32(i + 1), v) }
        return try ResultTable.from(s, name: "metrics")
    }

    public func responses(since: Int64, until: Int64) throws -> ResultTable {
        try table(
            """
            SELECT coalesce((SELECT name FROM topics WHERE id = topic_id), '(none)'), coalesce((SELECT name FROM envs WHERE id = env_id), '(none)'),
                   count(*), coalesce(sum(status = 200), 0), coalesce(sum(status = 410), 0)
            FROM responses WHERE time_ms >= ?1 AND time_ms < ?2
            GROUP BY topic_id, env_id ORDER BY 1, 2
            """, [since, until])
    }

    /// From hourly_responses: one small row per hour, topic and env.
    public func knownPairs() throws -> ResultTable {
        try table(
            """
            SELECT DISTINCT coalesce((SELECT name FROM topics WHERE id = topic_id), '(none)'),
                            coalesce((SELECT name FROM envs WHERE id = env_id), '(none)')
            FROM hourly_responses
            """)
    }

    public func errors(since: Int64, until: Int64) throws -> ResultTable {
        try table(
            """
            SELECT coalesce((SELECT name FROM topics WHERE id = topic_id), '(none)'), coalesce((SELECT name FROM envs WHERE id = env_id), '(none)'),
                   coalesce((SELECT name FROM categories WHERE id = category_id), 'unknown'), count(*)
            FROM responses WHERE status <> 200 AND time_ms >= ?1 AND time_ms < ?2
            GROUP BY topic_id, env_id, category_id ORDER BY 1, 2, 3
            """, [since, until])
    }

    public func categories() throws -> [String] {
        try db.strings("SELECT name FROM categories WHERE name NOT IN ('accepted', 'transport') ORDER BY id")
    }

    public func rejectedLines() throws -> Int64 { try db.scalarInt("SELECT coalesce(sum(rejects), 0) FROM sources") ?? 0 }

    /// sends, settings and unregisters are keyed by time first (a probe from the end of the key);
    /// registers are keyed by token, so their newest is token_facts' (one small row per token);
    /// receipts are keyed by apns-id, so theirs is a scan.
    static let newestByKind: [(String, String)] = [
        ("send", "SELECT time_ms FROM sends WHERE kind = 0 ORDER BY time_ms DESC LIMIT 1"),
        ("request", "SELECT time_ms FROM sends WHERE kind = 1 ORDER BY time_ms DESC LIMIT 1"),
        ("response", "SELECT time_ms FROM sends WHERE kind = 2 ORDER BY time_ms DESC LIMIT 1"),
        ("register", "SELECT max(last_reg) FROM token_facts"),
        ("settings", "SELECT max(time_ms) FROM settings"),
        ("receipt", "SELECT max(time_ms) FROM receipts"),
        ("unregister", "SELECT max(time_ms) FROM unregisters"),
    ]

    public func newest() throws -> [(String, Int64)] {
        var out: [(String, Int64)] = []
        for (kind, sql) in SQLiteMetricsSource.newestByKind {
            let probe = try db.prepare(sql)
            guard try probe.step(), !probe.isNull(0) else { continue }
            out.append((kind, probe.int(0)))
        }
        return out
    }

    public func reportSection(_ report: String, _ section: String, params: ReportParams) throws -> ResultTable? {
        guard let def = runner.catalog.report(report) else { return nil }
        return try runner.run(def, params: params, only: [section]).section(section)
    }

    public func needs(since: Int64, until: Int64) throws -> NeedCoverage {
        try DataCoverage(db: db).needs(since: since, until: until, topic: nil, env: nil)
    }
}
