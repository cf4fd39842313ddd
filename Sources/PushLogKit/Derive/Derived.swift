/// Facts derived from the records after each ingest, kept in tables so reports stay fast.
public enum Derived {
    /// Rebuilds every derived fact (after a bulk load, a crash, a join of split responses, a prune).
    public static func refresh(_ db: Database) throws {
        try PhaseTimer.measure("join responses") { _ = try joinSplitResponses(db) }
        try PhaseTimer.measure("token facts") { try refreshTokenFacts(db, only: nil) }
        try PhaseTimer.measure("devices") { try DevicePass(db: db, only: false).run() }
        try PhaseTimer.measure("user-only facts") { try refreshUserOnlyFacts(db) }
        try PhaseTimer.measure("stale intervals") { try refreshStaleIntervals(db, only: nil) }
        try PhaseTimer.measure("background pushes") { try refreshBackground(db, newRows: nil) }
        try PhaseTimer.measure("hourly responses") { try HourlyResponses.rebuild(db) }
    }

    /// Rebuilds the facts of the given tokens and devices only (a small ingest into a large
    /// database). Falls back to a full refresh when split responses were joined (their tokens are
    /// not known beforehand). Must give the same tables as `refresh` (tested).
    /// Send and receipt rows with a rowid above `newRows` are the ones this run added (rowids only
    /// grow: a new row gets the largest rowid plus one).
    public static func refresh(_ db: Database, tokens: Set<Int64>, devices: Set<String>,
                               newRows: RowMarks) throws {
        if try joinSplitResponses(db) { try refresh(db); return }
        try db.exec("""
            CREATE TEMP TABLE IF NOT EXISTS touched_tokens(id INTEGER PRIMARY KEY);
            CREATE TEMP TABLE IF NOT EXISTS touched_devices(d TEXT PRIMARY KEY);
            DELETE FROM touched_tokens; DELETE FROM touched_devices;
            """)
        let it = try db.prepare("INSERT OR IGNORE INTO touched_tokens(id) VALUES (?1)")
        for t in tokens { it.bind(1, t); try it.run() }
        let id = try db.prepare("INSERT OR IGNORE INTO touched_devices(d) VALUES (?1)")
        for d in devices { id.bind(1, d); try id.run() }
        // Every token a touched device ever registered: its runs (and so its stale intervals) may change.
        try db.exec("""
            INSERT OR IGNORE INTO touched_tokens(id)
              SELECT token_id FROM registers WHERE device IN (SELECT d FROM touched_devices);
            """)
        let filter = "token_id IN (SELECT id FROM temp.touched_tokens)"
        try PhaseTimer.measure("token facts") { try refreshTokenFacts(db, only: filter) }
        try PhaseTimer.measure("devices") { try DevicePass(db: db, only: true).run() }
        try PhaseTimer.measure("user-only facts") {
            try db.exec("DELETE FROM device_facts WHERE dkey >= 'user:' AND dkey < 'user;'")
            try refreshUserOnlyFacts(db)
        }
        try PhaseTimer.measure("stale intervals") { try refreshStaleIntervals(db, only: filter) }
        try PhaseTimer.measure("background pushes") { try refreshBackground(db, newRows: newRows) }
        try PhaseTimer.measure("hourly responses") { try HourlyResponses.add(db, after: newRows.sends) }
    }

    /// The largest send and receipt rowids at some moment (see `refresh(_:tokens:devices:newRows:)`).
    public struct RowMarks {
        public var sends: Int64, receipts: Int64
        public static func now(_ db: Database) throws -> RowMarks {
            RowMarks(sends: try db.scalarInt("SELECT coalesce(max(rowid), 0) FROM sends") ?? 0,
                     receipts: try db.scalarInt("SELECT coalesce(max(rowid), 0) FROM receipts") ?? 0)
        }
    }

    /// Builds `bg_pushes`: fully (`newRows` nil), or adds the background pushes among the new send
    /// rows and sets the receipt time of the pushes a new receipt answers. Send rows never change
    /// after insert except by a join of split responses or a prune, and both refresh fully.
    static func refreshBackground(_ db: Database, newRows: RowMarks?) throws {
        /// The first background receipt for the apns_id of a row of `table`.
        func receiptTime(_ table: String) -> String {
            "(SELECT min(rc.t) FROM receipts rc WHERE rc.apns_id = \(table).apns_id AND rc.receipt = 'background')"
        }
        let select = """
            SELECT t / 3600000, coalesce(token_id, 0), t, h1, h2, status, priority,
                   coalesce(has_alert = 1 OR has_sound = 1 OR has_badge = 1, 0), topic, env, apns_id,
                   CASE WHEN status = 200 AND apns_id IS NOT NULL THEN \(receiptTime("sends")) END
            FROM sends
            """
        let rule = "kind IN (0, 2) AND status IS NOT NULL AND (\(Schema.backgroundRule))"
        let insert = "INSERT OR IGNORE INTO bg_pushes(hour, token_id, t, h1, h2, status, priority, with_alert, topic, env, apns_id, rt)"
        guard let newRows else {
            // Read in time order (the partial index), so the rows land near the end of the tree: no sort.
            try db.exec("DELETE FROM bg_pushes; \(insert) \(select) INDEXED BY sends_background WHERE \(rule)")
            return
        }
        try db.exec("\(insert) \(select) WHERE rowid > \(newRows.sends) AND \(rule)")
        // Older pushes that a new receipt answers, found through the apns_id index of sends.
        try db.exec("""
            UPDATE bg_pushes SET rt = \(receiptTime("bg_pushes"))
            WHERE status = 200 AND (hour, token_id, t, h1, h2) IN (
              SELECT s.t / 3600000, coalesce(s.token_id, 0), s.t, s.h1, s.h2 FROM sends s
              WHERE s.apns_id IN (SELECT apns_id FROM receipts WHERE rowid > \(newRows.receipts) AND receipt = 'background'));
            """)
    }

    /// Opt-in facts for observations without a device (settings or registrations that name only
    /// a user), keyed 'user:ID'; devices are handled by DevicePass.
    static func refreshUserOnlyFacts(_ db: Database) throws {
        let key = "'user:' || user"
        let decided = "auth IN ('authorized', 'denied', 'provisional', 'ephemeral')"
        let onlyUser = "device IS NULL AND user IS NOT NULL"
        try db.exec("""
            INSERT INTO device_facts(dkey, user, opt_in, last_obs)
              SELECT dkey, max(user), min(oi), max(lo) FROM (
                SELECT \(key) AS dkey, max(user) AS user, min(CASE WHEN auth = 'authorized' THEN t END) AS oi, max(t) AS lo
                FROM registers WHERE \(onlyUser) AND auth IS NOT NULL GROUP BY 1
                UNION ALL
                SELECT \(key), max(user), min(CASE WHEN auth = 'authorized' THEN t END), max(t) FROM settings WHERE \(onlyUser) GROUP BY 1)
              GROUP BY dkey;
            UPDATE device_facts SET off = o.t FROM (
                SELECT o.dkey, min(o.t) AS t FROM (
                  SELECT \(key) AS dkey, t FROM registers WHERE \(onlyUser) AND auth = 'denied'
                  UNION ALL SELECT \(key), t FROM settings WHERE \(onlyUser) AND auth = 'denied') AS o
                JOIN device_facts f ON f.dkey = o.dkey
                WHERE o.t > f.opt_in GROUP BY o.dkey) AS o
              WHERE o.dkey = device_facts.dkey;
            UPDATE device_facts SET fd_t = d.t, fd_auth = d.auth FROM (
                SELECT dkey, min(t) AS t, auth FROM (
                  SELECT \(key) AS dkey, min(t) AS t, auth FROM registers WHERE \(onlyUser) AND \(decided) GROUP BY 1
                  UNION ALL SELECT \(key), min(t), auth FROM settings WHERE \(onlyUser) AND \(decided) GROUP BY 1)
                GROUP BY dkey) AS d
              WHERE d.dkey = device_facts.dkey;
            UPDATE device_facts SET last_token = r.token_id, last_reg = r.t FROM (
                SELECT \(key) AS dkey, token_id, max(t) AS t FROM registers WHERE \(onlyUser) GROUP BY 1) AS r
              WHERE r.dkey = device_facts.dkey;
            """)
    }

    /// Joins split `response` records to their `request` by apns_id (whichever arrived first).
    /// The partial index sends_unjoined holds exactly the responses still waiting for their request.
    /// Returns true when some responses were waiting (their tokens' facts may have changed).
    static func joinSplitResponses(_ db: Database) throws -> Bool {
        guard try db.scalarInt("SELECT 1 FROM sends INDEXED BY sends_unjoined WHERE kind = 2 AND token_id IS NULL LIMIT 1") != nil else { return false }
        try db.exec("""
            UPDATE sends SET
              token_id = coalesce(sends.token_id, r.token_id), env = coalesce(sends.env, r.env),
              topic = coalesce(sends.topic, r.topic), push_type = coalesce(sends.push_type, r.push_type),
              priority = coalesce(sends.priority, r.priority), collapse_id = coalesce(sends.collapse_id, r.collapse_id),
              expiration = coalesce(sends.expiration, r.expiration), payload_bytes = coalesce(sends.payload_bytes, r.payload_bytes),
              content_available = coalesce(sends.content_available, r.content_available),
              mutable_content = coalesce(sends.mutable_content, r.mutable_content),
              has_alert = coalesce(sends.has_alert, r.has_alert), has_sound = coalesce(sends.has_sound, r.has_sound),
              has_badge = coalesce(sends.has_badge, r.has_badge), aps_category = coalesce(sends.aps_category, r.aps_category),
              thread_id = coalesce(sends.thread_id, r.thread_id),
              interruption_level = coalesce(sends.interruption_level, r.interruption_level),
              custom_keys = coalesce(sends.custom_keys, r.custom_keys), attempt = coalesce(sends.attempt, r.attempt)
            FROM (SELECT apns_id, token_id, env, topic, push_type, priority, collapse_id, expiration, payload_bytes,
                         content_available, mutable_content, has_alert, has_sound, has_badge, aps_category, thread_id,
                         interruption_level, custom_keys, attempt
                  FROM sends WHERE kind = 1) AS r
            WHERE sends.kind = 2 AND sends.token_id IS NULL AND r.apns_id = sends.apns_id;
            """)
        return true
    }

    /// Per-token facts: latest registration (env, app version, device) and first 410.
    /// `only` restricts the rebuild to tokens matching an SQL condition on `token_id`.
    static func refreshTokenFacts(_ db: Database, only: String?) throws {
        let w = only ?? "1"
        try db.exec("""
            DELETE FROM token_facts WHERE \(w);
            INSERT INTO token_facts(token_id, last_reg, reg_env, reg_app_version, reg_device, reg_user)
              SELECT token_id, max(t), env, app_version, device, user FROM registers WHERE \(w) GROUP BY token_id;
            UPDATE token_facts SET first_reg = m.t
              FROM (SELECT token_id, min(t) AS t FROM registers WHERE \(w) GROUP BY token_id) AS m
              WHERE m.token_id = token_facts.token_id;
            INSERT OR IGNORE INTO token_facts(token_id) SELECT id FROM tokens WHERE \(w.replacingOccurrences(of: "token_id", with: "id"));
            UPDATE token_facts SET malformed = 1 WHERE \(w) AND token_id IN (SELECT id FROM tokens WHERE malformed = 1);
            UPDATE token_facts SET first_410 = g.t, first_410_ts = g.ts
              FROM (SELECT token_id, min(t) AS t, apns_ts AS ts FROM sends
                    WHERE status = 410 AND kind IN (0, 2) AND token_id IS NOT NULL AND \(w) GROUP BY token_id) AS g
              WHERE g.token_id = token_facts.token_id;
            """)
    }

    /// A send to token T at time t went to a superseded token when the run of T with the latest
    /// start at or before t was superseded before t: so T is stale from each run's superseded_at
    /// until T's next run starts (on any device). Reports count sends inside these intervals.
    static func refreshStaleIntervals(_ db: Database, only: String?) throws {
        let w = only ?? "1"
        try db.exec("""
            DELETE FROM token_stale WHERE \(w);
            INSERT INTO token_stale(token_id, from_t, to_t)
              SELECT token_id, superseded_at, next_start FROM (
                SELECT token_id, superseded_at,
                       coalesce(lead(start) OVER (PARTITION BY token_id ORDER BY start), 9000000000000000000) AS next_start
                FROM token_runs WHERE \(w))
              WHERE superseded_at IS NOT NULL AND superseded_at < next_start;
            """)
    }
}
