/// `background_hourly`: the background pushes of each UTC clock hour, token, topic and env, counted
/// the way the silent report and hygiene's background rules count them, with the receipt lags of
/// the accepted ones as a list. Reports read whole hours here (a quarter as many rows as pushes)
/// and the `background_pushes` view of sends only for the partial hours at the ends of a range.
enum BackgroundHourly {
    /// The columns `count` reads of each push, from `background_pushes b`.
    static let pushColumns = """
        b.hour, b.token_id, coalesce(b.topic_id, 0), coalesce(b.env_id, 0), b.status, b.priority, b.with_alert,
        CASE WHEN b.status = 200 THEN b.receipt_ms - b.time_ms END
        """

    /// Counts every hour again (after a bulk load, a crash, a prune), reading the pushes in time
    /// order through sends_background.
    static func rebuild(_ db: Database) throws {
        try db.exec("DELETE FROM background_hourly")
        try count(db, "SELECT \(pushColumns) FROM background_pushes b WHERE b.time_ms >= -9000000000000000000 ORDER BY b.time_ms")
    }

    /// One hour's cell: a token, topic and env.
    struct Key: Hashable, Comparable {
        let token: Int64, topic: Int64, env: Int64
        static func < (a: Key, b: Key) -> Bool { (a.token, a.topic, a.env) < (b.token, b.topic, b.env) }
    }

    struct Cell {
        var pushes: Int64 = 0, accepted: Int64 = 0, priorities: Int64 = 0, priorityNot5: Int64 = 0, withAlert: Int64 = 0
        var lags: [Int64] = []

        /// Adds the push of the scan's current row (pushColumns 4...7).
        mutating func add(_ s: Statement) {
            pushes += 1
            if s.int(4) == 200 { accepted += 1 }
            if !s.isNull(5) { priorities += 1 }
            if s.isNull(5) || s.int(5) != 5 { priorityNot5 += 1 }  // a missing priority is APNs' default, 10
            if s.int(6) == 1 { withAlert += 1 }
            if !s.isNull(7) { lags.append(s.int(7)) }
        }
    }

    /// Counts the pushes `sql` returns (pushColumns) into background_hourly an hour at a time,
    /// adding to a cell that has counts already (a run's new pushes; or an hour the rows come back
    /// to when they are not in time order). SQL's GROUP BY would sort every push: at 25 M records a
    /// sorter of 3.7 M rows and their lags, which pushed the ingest's peak memory over its budget.
    static func count(_ db: Database, _ sql: String) throws {
        let scan = try db.prepare(sql)
        let ins = try db.prepare(
            """
            INSERT INTO background_hourly(hour, token_id, topic_id, env_id, pushes, accepted, priorities, priority_not_5, with_alert,
                                          received, lags)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
            ON CONFLICT(hour, token_id, topic_id, env_id) DO UPDATE SET
              pushes = pushes + excluded.pushes, accepted = accepted + excluded.accepted, priorities = priorities + excluded.priorities,
              priority_not_5 = priority_not_5 + excluded.priority_not_5, with_alert = with_alert + excluded.with_alert,
              received = received + excluded.received,
              lags = CASE WHEN lags IS NULL THEN excluded.lags WHEN excluded.lags IS NULL THEN lags ELSE lags || ',' || excluded.lags END
            """)
        var hour: Int64?
        var cells: [Key: Cell] = [:]
        func flush() throws {
            guard let hour else { return }
            for (k, c) in cells.sorted(by: { $0.key < $1.key }) {
                for (i, v) in [hour, k.token, k.topic, k.env, c.pushes, c.accepted, c.priorities, c.priorityNot5, c.withAlert].enumerated()
                {
                    ins.bind(Int32(i + 1), v)
                }
                ins.bind(10, Int64(c.lags.count))
                ins.bind(11, c.lags.isEmpty ? nil : c.lags.map(String.init).joined(separator: ","))
                try ins.run()
            }
            cells.removeAll(keepingCapacity: true)
        }
        while try scan.step() {
            let h = scan.int(0)
            if h != hour {
                try flush()
                hour = h
            }
            // In place: a copy of the cell taken out and put back would copy its lags on append.
            cells[Key(token: scan.int(1), topic: scan.int(2), env: scan.int(3)), default: Cell()].add(scan)
        }
        try flush()
    }

    /// Adds a run's new pushes (the send rows above `sendsAfter`) to their cells, and counts again
    /// the hours of older pushes that the run's `receipts` (apns-ids) answer: a receipt sets its
    /// push's lag, and may come a day after it. (Counting every hour a run touches again read each
    /// of those hours' pushes: 0.9 s for a day's files at 25 M records.)
    static func refresh(_ db: Database, sendsAfter rowid: Int64, receipts: Set<String>) throws {
        try db.exec(
            """
            CREATE TEMP TABLE IF NOT EXISTS touched_hours(hour INTEGER PRIMARY KEY); DELETE FROM touched_hours;
            CREATE TEMP TABLE IF NOT EXISTS touched_receipts(apns_id PRIMARY KEY); DELETE FROM touched_receipts;
            """)
        let ins = try db.prepare("INSERT OR IGNORE INTO touched_receipts(apns_id) VALUES (?1)")
        for a in receipts {
            ApnsIDKey.bind(ins, 1, text: a)
            try ins.run()
        }
        try db.exec(receiptHours(olderThan: rowid))
        try db.exec("DELETE FROM background_hourly WHERE hour IN (SELECT hour FROM temp.touched_hours)")
        try count(
            db,
            """
            SELECT \(pushColumns) FROM temp.touched_hours h
            JOIN background_pushes b ON b.time_ms >= h.hour * 3600000 AND b.time_ms < (h.hour + 1) * 3600000
            ORDER BY b.time_ms
            """)
        try count(
            db,
            """
            SELECT \(pushColumns) FROM background_pushes b
            WHERE b.id > \(rowid) AND b.hour NOT IN (SELECT hour FROM temp.touched_hours)
            """)  // the new rows by rowid: ordered by time, SQLite would read all of sends_background
    }

    /// The hours of the pushes up to row `rowid` that the apns-ids in temp.touched_receipts
    /// answer. Its plan is pinned by a test: the prefixes first, so the IN list drives sends_apns
    /// (no scan of sends).
    static func receiptHours(olderThan rowid: Int64) -> String {
        """
        INSERT OR IGNORE INTO touched_hours(hour)
          SELECT \(Schema.hourOf("s.time_ms")) FROM sends s
          WHERE substr(s.apns_id, 1, 8) IN (SELECT substr(apns_id, 1, 8) FROM temp.touched_receipts)
            AND s.apns_id IN (SELECT apns_id FROM temp.touched_receipts) AND s.rowid <= \(rowid) AND \(Schema.backgroundWhere);
        """
    }
}
