/// `background_hourly`: the background pushes of each UTC clock hour, token, topic and env, counted
/// the way the silent report and hygiene's background rules count them, with the receipt lags of
/// the accepted ones as a list. Reports read whole hours here (a quarter as many rows as pushes)
/// and the `background_pushes` view of sends only for the partial hours at the ends of a range.
enum BackgroundHourly {
    /// The counts of a group of `background_pushes` rows, in the table's column order.
    static let counts = """
        count(*), count(CASE WHEN status = 200 THEN 1 END), count(priority), count(CASE WHEN coalesce(priority, 10) <> 5 THEN 1 END),
        count(CASE WHEN with_alert = 1 THEN 1 END), count(CASE WHEN status = 200 THEN receipt_ms END),
        group_concat(CASE WHEN status = 200 THEN receipt_ms - time_ms END)
        """

    /// Counts the pushes of `from` (background_pushes as `b`, and what else the condition needs).
    static func insert(from: String, where condition: String) -> String {
        """
        INSERT INTO background_hourly(hour, token_id, topic_id, env_id, pushes, accepted, priorities, priority_not_5, with_alert,
                                      received, lags)
          SELECT b.hour, b.token_id, coalesce(b.topic_id, 0), coalesce(b.env_id, 0), \(counts)
          FROM \(from) WHERE \(condition) GROUP BY 1, 2, 3, 4;
        """
    }

    /// Counts every hour again (after a bulk load, a crash, a prune). The time term makes the
    /// planner read the pushes through sends_background rather than scan sends.
    static func rebuild(_ db: Database) throws {
        try db.exec("DELETE FROM background_hourly; \(insert(from: "background_pushes b", where: "b.time_ms >= -9000000000000000000"))")
    }

    /// Counts again the hours of the send rows above `sendsAfter` (a run's new pushes), and of the
    /// pushes that the run's `receipts` (apns-ids) answer: a receipt sets its push's lag, whatever
    /// hour the push was in.
    static func refresh(_ db: Database, sendsAfter rowid: Int64, receipts: Set<String>) throws {
        try db.exec(
            """
            CREATE TEMP TABLE IF NOT EXISTS touched_hours(hour INTEGER PRIMARY KEY); DELETE FROM touched_hours;
            INSERT OR IGNORE INTO touched_hours(hour) SELECT \(Schema.hourOf("time_ms")) FROM sends WHERE rowid > \(rowid);
            CREATE TEMP TABLE IF NOT EXISTS touched_receipts(apns_id PRIMARY KEY); DELETE FROM touched_receipts;
            """)
        let ins = try db.prepare("INSERT OR IGNORE INTO touched_receipts(apns_id) VALUES (?1)")
        for a in receipts {
            ApnsIDKey.bind(ins, 1, text: a)
            try ins.run()
        }
        try db.exec(
            """
            \(receiptHours)
            DELETE FROM background_hourly WHERE hour IN (SELECT hour FROM temp.touched_hours);
            \(insert(
                from: "temp.touched_hours h JOIN background_pushes b ON b.time_ms >= h.hour * 3600000 AND b.time_ms < (h.hour + 1) * 3600000",
                where: "1"))
            """)
    }

    /// The hours of the pushes that the apns-ids in temp.touched_receipts answer. Its plan is
    /// pinned by a test: the prefixes first, so the IN list drives sends_apns (no scan of sends).
    static var receiptHours: String {
        """
        INSERT OR IGNORE INTO touched_hours(hour)
          SELECT \(Schema.hourOf("s.time_ms")) FROM sends s
          WHERE substr(s.apns_id, 1, 8) IN (SELECT substr(apns_id, 1, 8) FROM temp.touched_receipts)
            AND s.apns_id IN (SELECT apns_id FROM temp.touched_receipts);
        """
    }
}
