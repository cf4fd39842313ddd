/// `background_hourly`: the background pushes of each UTC clock hour, token, topic and env, counted
/// the way the silent report and hygiene's background rules count them, with the receipt lags of
/// the accepted ones as a list. Reports read whole hours here (about a quarter of the rows of
/// `background_pushes`) and `background_pushes` only for the partial hours at the ends of a range.
enum BackgroundHourly {
    /// The counts of a group of `background_pushes` rows, in the table's column order.
    static let counts = """
        count(*), count(CASE WHEN status = 200 THEN 1 END), count(priority), count(CASE WHEN coalesce(priority, 10) <> 5 THEN 1 END),
        count(CASE WHEN with_alert = 1 THEN 1 END), count(CASE WHEN status = 200 THEN receipt_ms END),
        group_concat(CASE WHEN status = 200 THEN receipt_ms - time_ms END)
        """

    static func insert(_ whereClause: String) -> String {
        """
        INSERT INTO background_hourly(hour, token_id, topic_id, env_id, pushes, accepted, priorities, priority_not_5, with_alert,
                                      received, lags)
          SELECT hour, token_id, coalesce(topic_id, 0), coalesce(env_id, 0), \(counts)
          FROM background_pushes WHERE \(whereClause) GROUP BY 1, 2, 3, 4;
        """
    }

    /// Counts every hour again (after a bulk load, a crash, a prune).
    static func rebuild(_ db: Database) throws {
        try db.exec("DELETE FROM background_hourly; \(insert("1"))")
    }

    /// Counts again the hours of the send rows above `sendsAfter` (a run's new pushes), and of the
    /// pushes that the run's receipts (temp.touched_receipts, when there were any) answered: a
    /// receipt changes its push's lag, whatever hour the push was in.
    static func refresh(_ db: Database, sendsAfter rowid: Int64, receipts: Bool) throws {
        try db.exec(
            """
            CREATE TEMP TABLE IF NOT EXISTS touched_hours(hour INTEGER PRIMARY KEY); DELETE FROM touched_hours;
            INSERT OR IGNORE INTO touched_hours(hour) SELECT time_ms / 3600000 FROM sends WHERE rowid > \(rowid);
            """)
        if receipts {
            try db.exec(
                """
                INSERT OR IGNORE INTO touched_hours(hour)
                  SELECT s.time_ms / 3600000 FROM sends s
                  WHERE substr(s.apns_id, 1, 8) IN (SELECT substr(apns_id, 1, 8) FROM temp.touched_receipts)
                    AND s.apns_id IN (SELECT apns_id FROM temp.touched_receipts);
                """)
        }
        try db.exec(
            """
            DELETE FROM background_hourly WHERE hour IN (SELECT hour FROM temp.touched_hours);
            \(insert("hour IN (SELECT hour FROM temp.touched_hours)"))
            """)
    }
}
