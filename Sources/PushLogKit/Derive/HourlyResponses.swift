/// `hourly_responses`: responses and 410s per UTC clock hour, topic and env; and `hygiene_hourly`:
/// per hour, source, topic and env, the response counts the hygiene rules need. Reports count
/// whole hours here without reading `sends`. A full rebuild reads the responses once in time
/// order (the identity index, so no sort) and writes each hour as it ends; an incremental one
/// adds the rows a run inserted.
enum HourlyResponses {
    static let hour: Int64 = 3_600_000

    static func rebuild(_ db: Database) throws {
        try db.exec("DELETE FROM hourly_responses; DELETE FROM hygiene_hourly")
        let scan = try db.prepare(
            """
            SELECT time_ms, coalesce(topic_id, 0), coalesce(env_id, 0), status = 410, coalesce(source_id, 0), push_type_id,
                   priority, collapse_id, expiration, has_alert, has_sound, has_badge, mutable_content, apns_id, attempt
            FROM responses ORDER BY time_ms
            """)
        let ins = try db.prepare("INSERT INTO hourly_responses(hour, topic_id, env_id, responses, gone) VALUES (?1, ?2, ?3, ?4, ?5)")
        let insHygiene = try db.prepare(
            """
            INSERT INTO hygiene_hourly(hour, source_id, topic_id, env_id, responses, with_headers, with_payload, with_ids, untyped,
                                       alert_logged, alert_empty, mutable_logged, mutable_empty)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
            """)
        struct Cell { let topic: Int64, env: Int64; var responses: Int64, gone: Int64 }
        struct HygieneCell { let source: Int64, topic: Int64, env: Int64; var counts: HygieneCounts }
        var current: Int64?
        var cells: [Cell] = []  // the current hour's topic/env pairs: a handful
        var hygiene: [HygieneCell] = []  // and its source/topic/env triples: a handful more
        var last = 0  // the hygiene cell of the previous row
        func flush() throws {
            guard let current else { return }
            for c in cells {
                ins.bind(1, current); ins.bind(2, c.topic); ins.bind(3, c.env); ins.bind(4, c.responses); ins.bind(5, c.gone)
                try ins.run()
            }
            for c in hygiene {
                insHygiene.bind(1, current); insHygiene.bind(2, c.source); insHygiene.bind(3, c.topic); insHygiene.bind(4, c.env)
                for (k, n) in c.counts.columns.enumerated() { insHygiene.bind(Int32(5 + k), n) }
                try insHygiene.run()
            }
            cells.removeAll(keepingCapacity: true)
            hygiene.removeAll(keepingCapacity: true)
        }
        while try scan.step() {
            let h = TimeFormat.floorDiv(scan.int(0), hour)
            if h != current {
                try flush()
                current = h
            }
            let topic = scan.int(1), env = scan.int(2), gone = scan.int(3)
            if let i = cells.firstIndex(where: { $0.topic == topic && $0.env == env }) {
                cells[i].responses += 1
                cells[i].gone += gone
            } else {
                cells.append(Cell(topic: topic, env: env, responses: 1, gone: gone))
            }
            // Rows come in runs of one source file: try the cell of the previous row first.
            let source = scan.int(4)
            func matches(_ c: HygieneCell) -> Bool { c.source == source && c.topic == topic && c.env == env }
            if last >= hygiene.count || !matches(hygiene[last]) {
                if let i = hygiene.firstIndex(where: matches) {
                    last = i
                } else {
                    hygiene.append(HygieneCell(source: source, topic: topic, env: env, counts: HygieneCounts()))
                    last = hygiene.count - 1
                }
            }
            hygiene[last].counts.add(scan)
        }
        try flush()
    }

    /// The hygiene_hourly counts of one cell. `add` makes the same tests in Swift that
    /// `hygieneColumns` below makes in SQL (the incremental path); DerivedTests compares the two.
    struct HygieneCounts {
        var responses: Int64 = 0, withHeaders: Int64 = 0, withPayload: Int64 = 0, withIDs: Int64 = 0, untyped: Int64 = 0
        var alertLogged: Int64 = 0, alertEmpty: Int64 = 0, mutableLogged: Int64 = 0, mutableEmpty: Int64 = 0

        var columns: [Int64] {
            [responses, withHeaders, withPayload, withIDs, untyped, alertLogged, alertEmpty, mutableLogged, mutableEmpty]
        }

        /// Adds the response of the scan's current row (columns 5...14 of the rebuild's SELECT).
        mutating func add(_ s: Statement) {
            let typed = !s.isNull(5), payload = !s.isNull(9)
            responses += 1
            if typed || !s.isNull(6) || !s.isNull(7) || !s.isNull(8) { withHeaders += 1 }
            if payload { withPayload += 1 }
            if !s.isNull(13) || !s.isNull(14) || !s.isNull(7) { withIDs += 1 }
            if !typed { untyped += 1 }
            if typed && payload && s.int(5) == 1 {  // push type 1: alert (seeded)
                alertLogged += 1
                if s.int(9) == 0 && !s.isNull(10) && s.int(10) == 0 && !s.isNull(11) && s.int(11) == 0 { alertEmpty += 1 }
            }
            if payload && !s.isNull(12) && s.int(12) == 1 {
                mutableLogged += 1
                if s.int(9) == 0 { mutableEmpty += 1 }
            }
        }
    }

    /// The hygiene_hourly counts of a group of `sends` rows, in SQL (the incremental path).
    static let hygieneColumns = """
        count(*), coalesce(sum(push_type_id IS NOT NULL OR priority IS NOT NULL OR collapse_id IS NOT NULL OR expiration IS NOT NULL), 0),
        coalesce(sum(has_alert IS NOT NULL), 0), coalesce(sum(apns_id IS NOT NULL OR attempt IS NOT NULL OR collapse_id IS NOT NULL), 0),
        count(*) - count(push_type_id), coalesce(sum(push_type_id = 1 AND has_alert IS NOT NULL), 0),
        coalesce(sum(push_type_id = 1 AND has_alert = 0 AND has_sound = 0 AND has_badge = 0), 0),
        coalesce(sum(mutable_content = 1 AND has_alert IS NOT NULL), 0), coalesce(sum(mutable_content = 1 AND has_alert = 0), 0)
        """

    /// Adds the responses among the send rows above `rowid`.
    static func add(_ db: Database, after rowid: Int64) throws {
        try db.exec(
            """
            INSERT INTO hourly_responses(hour, topic_id, env_id, responses, gone)
              SELECT bucket_start(time_ms, 'hour') / \(hour), coalesce(topic_id, 0), coalesce(env_id, 0), count(*), sum(status = 410)
              FROM responses WHERE id > \(rowid) GROUP BY 1, 2, 3
            ON CONFLICT(hour, topic_id, env_id) DO UPDATE SET responses = responses + excluded.responses, gone = gone + excluded.gone;
            INSERT INTO hygiene_hourly(hour, source_id, topic_id, env_id, responses, with_headers, with_payload, with_ids, untyped,
                                       alert_logged, alert_empty, mutable_logged, mutable_empty)
              SELECT bucket_start(time_ms, 'hour') / \(hour), coalesce(source_id, 0), coalesce(topic_id, 0), coalesce(env_id, 0),
                     \(hygieneColumns)
              FROM responses WHERE id > \(rowid) GROUP BY 1, 2, 3, 4
            ON CONFLICT(hour, source_id, topic_id, env_id) DO UPDATE SET responses = responses + excluded.responses,
              with_headers = with_headers + excluded.with_headers, with_payload = with_payload + excluded.with_payload,
              with_ids = with_ids + excluded.with_ids, untyped = untyped + excluded.untyped,
              alert_logged = alert_logged + excluded.alert_logged, alert_empty = alert_empty + excluded.alert_empty,
              mutable_logged = mutable_logged + excluded.mutable_logged, mutable_empty = mutable_empty + excluded.mutable_empty;
            """)
    }
}
