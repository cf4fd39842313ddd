/// Says why a report may come out empty: a range outside the data, or a `--topic`/`--env`
/// value that never occurs. The notes go to stderr; the report itself still prints.
public struct DataCoverage {
    let db: Database
    public init(db: Database) { self.db = db }

    /// The time span of all records (responses and registrations), or nil for an empty database.
    func span() throws -> (Int64, Int64)? {
        // One min() or max() per SELECT, so each is a single probe of a (time_ms, …) key instead
        // of a scan; the aggregate skips the NULL of an empty table. Registrations are keyed by
        // token: their span comes from token_facts (a scan, but of one small row per token).
        let s = try db.prepare(
            """
            SELECT min(lo), max(hi) FROM (
              SELECT (SELECT min(time_ms) FROM sends) AS lo, (SELECT max(time_ms) FROM sends) AS hi
              UNION ALL SELECT (SELECT min(first_reg) FROM token_facts), (SELECT max(last_reg) FROM token_facts)
              UNION ALL SELECT (SELECT min(time_ms) FROM settings), (SELECT max(time_ms) FROM settings))
            """)
        guard try s.step(), !s.isNull(0) else { return nil }
        return (s.int(0), s.int(1))
    }

    public func notes(for p: ReportParams, report: ReportDefinition) throws -> [String] {
        try Self.notes(
            for: p, report: report, span: span(),
            topics: {
                try values(
                    "SELECT name FROM topics WHERE id IN (SELECT DISTINCT topic_id FROM hourly_responses) AND name <> '' ORDER BY 1 LIMIT 20"
                )
            },
            envs: {
                try values("SELECT name FROM envs WHERE id IN (SELECT DISTINCT env_id FROM hourly_responses) AND name <> '' ORDER BY 1")
            })
    }

    /// The notes from what an engine knows: the data's span (nil: no records), and the topics
    /// (at most 20) and envs its responses were sent for, asked only when a filter names one.
    public static func notes(
        for p: ReportParams, report: ReportDefinition, span: (Int64, Int64)?, topics: () throws -> [String],
        envs: () throws -> [String]
    ) throws -> [String] {
        var out: [String] = []
        let names = Set(report.paramNames)
        guard let (lo, hi) = span else { return ["the database holds no records (run `pushlog ingest PATH...` first)"] }
        let since = p.since ?? Int64.min, until = p.until ?? Int64.max
        if names.contains("since") && (since > hi || until <= lo) {
            out.append(
                "no records between \(p.since.map { TimeFormat.rfc3339(ms: $0) } ?? "the start") and "
                    + "\(p.until.map { TimeFormat.rfc3339(ms: $0) } ?? "the end"); the data spans \(TimeFormat.rfc3339(ms: lo)) … \(TimeFormat.rfc3339(ms: hi))"
            )
        }
        if let topic = p.topic, names.contains("topic") {
            let known = try topics()
            if !known.contains(topic) {
                out.append("no responses for topic '\(topic)'; topics seen: \(known.isEmpty ? "none" : known.joined(separator: ", "))")
            }
        }
        if let env = p.env, names.contains("env") {
            let known = try envs()
            if !known.contains(env) {
                out.append("no responses sent to env '\(env)'; envs seen: \(known.isEmpty ? "none" : known.joined(separator: ", "))")
            }
        }
        return out
    }

    /// True when [since, until) holds at least one record of the kinds `evidence` names; for
    /// responses, of `topic` and `env` when given (a filter that matches nothing holds none).
    public func hasRecords(
        since: Int64, until: Int64, _ evidence: RecordEvidence, topic: String? = nil, env: String? = nil
    ) throws -> Bool {
        // Each table is probed by its time key, except registrations (clustered by token): their
        // probe stops at the first hit, and scans only when the range is empty. Requests are not
        // answers: a log of requests without responses is a range without responses.
        let answers = """
            SELECT 1 FROM sends WHERE time_ms >= ?1 AND time_ms < ?2 AND kind IN (0, 2)
              AND (?3 IS NULL OR topic_id = (SELECT id FROM topics WHERE name = ?3))
              AND (?4 IS NULL OR env_id = (SELECT id FROM envs WHERE name = ?4))
            """
        let others = ["registers", "settings", "receipts", "unregisters"].map {
            ($0, "SELECT 1 FROM \($0) WHERE time_ms >= ?1 AND time_ms < ?2")
        }
        func table(_ name: String) -> String { others.first { $0.0 == name }!.1 }
        let probes: [String]
        switch evidence {
        case .responses: probes = [answers]
        case .registrations: probes = [table("registers")]
        case .observations: probes = [table("settings"), table("registers")]
        case .any: probes = [answers, "SELECT 1 FROM sends WHERE time_ms >= ?1 AND time_ms < ?2"] + others.map(\.1)
        }
        for sql in probes {
            let s = try db.prepare(sql + " LIMIT 1")
            s.bind(1, since)
            s.bind(2, until)
            if sql == answers {
                s.bind(3, topic)
                s.bind(4, env)
            }
            if try s.step() { return true }
        }
        return false
    }

    /// How many of [since, until)'s records (responses of `topic` and `env` when given) carry
    /// what figures need. One statement: the responses and 410s of whole hours (and those with
    /// an env) from hourly_responses, the partial hours at the ends from the records; the
    /// responses without a token through the token index (NULL tokens come first); whether
    /// registrations, and registrations with a device, exist before `until`: one probe each.
    func needs(since: Int64, until: Int64, topic: String?, env: String?) throws -> NeedCoverage {
        let s = try db.prepare(
            """
            WITH ids(topic_id, env_id) AS (
              SELECT coalesce((SELECT id FROM topics WHERE name = ?3), -1), coalesce((SELECT id FROM envs WHERE name = ?4), -1)
            ), whole_hours(lo, hi) AS (
              SELECT whole_hours_start(?1, ?2), whole_hours_end(?1, ?2)
            ), record_edges(lo, hi) AS (
              SELECT ?1, lo FROM whole_hours UNION ALL SELECT hi, ?2 FROM whole_hours
            ), counted(responses, with_env, gone) AS (
              SELECT h.responses, CASE WHEN h.env_id <> 0 THEN h.responses ELSE 0 END, h.gone
              FROM hourly_responses h, whole_hours w, ids
              WHERE h.hour >= w.lo / 3600000 AND h.hour < w.hi / 3600000
                AND (?3 IS NULL OR h.topic_id = ids.topic_id) AND (?4 IS NULL OR h.env_id = ids.env_id)
              UNION ALL
              SELECT 1, s.env_id IS NOT NULL, s.status = 410
              FROM record_edges r CROSS JOIN responses s, ids
              WHERE s.time_ms >= r.lo AND s.time_ms < r.hi
                AND (?3 IS NULL OR s.topic_id = ids.topic_id) AND (?4 IS NULL OR s.env_id = ids.env_id)
            ), tokenless(responses, gone) AS (
              SELECT count(*), coalesce(sum(s.status = 410), 0) FROM sends s, ids
              WHERE s.token_id IS NULL AND s.time_ms >= ?1 AND s.time_ms < ?2 AND s.kind IN (0, 2) AND s.status IS NOT NULL
                AND (?3 IS NULL OR s.topic_id = ids.topic_id) AND (?4 IS NULL OR s.env_id = ids.env_id)
            )
            SELECT coalesce(sum(c.responses), 0), coalesce(sum(c.with_env), 0), coalesce(sum(c.gone), 0),
                   (SELECT responses FROM tokenless), (SELECT gone FROM tokenless),
                   EXISTS (SELECT 1 FROM registers WHERE time_ms < ?2),
                   EXISTS (SELECT 1 FROM registers WHERE device_id IS NOT NULL AND time_ms < ?2)
            FROM counted c
            """)
        s.bind(1, since)
        s.bind(2, until)
        s.bind(3, topic)
        s.bind(4, env)
        guard try s.step() else { return NeedCoverage([:]) }
        let (responses, withEnv, gone, tokenless, goneTokenless) = (s.int(0), s.int(1), s.int(2), s.int(3), s.int(4))
        let (registered, withDevice) = (s.int(5), s.int(6))
        return NeedCoverage([
            .env: .init(carrying: withEnv, of: responses), .token: .init(carrying: responses - tokenless, of: responses),
            .goneToken: .init(carrying: gone - goneTokenless, of: gone),
            .registrations: .init(carrying: registered, of: responses > 0 ? 1 : 0),
            .device: .init(carrying: withDevice, of: registered),
        ])
    }

    func values(_ sql: String) throws -> [String] {
        let s = try db.prepare(sql)
        var out: [String] = []
        while try s.step() { if let v = s.string(0) { out.append(v) } }
        return out
    }
}
