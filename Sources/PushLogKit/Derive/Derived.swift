/// Facts derived from the records after each ingest, kept in tables so reports stay fast.
enum Derived {
    /// Rebuilds every derived fact (after a bulk load, a crash, a join of split responses, a prune).
    static func refresh(_ db: Database) throws {
        try PhaseTimer.measure("join responses") { _ = try joinSplitResponses(db) }
        try PhaseTimer.measure("token facts") { try refreshTokenFacts(db, only: nil) }
        try PhaseTimer.measure("devices") { try DevicePass(db: db, only: false).run() }
        try PhaseTimer.measure("user-only facts") { try refreshUserOnlyFacts(db) }
        try PhaseTimer.measure("stale intervals") { try refreshStaleIntervals(db, only: nil) }
        try PhaseTimer.measure("background hourly") { try BackgroundHourly.rebuild(db) }
        try PhaseTimer.measure("hourly responses") { try HourlyResponses.rebuild(db) }
        try PhaseTimer.measure("retries") { try Retries.rebuild(db) }
    }

    /// Rebuilds the facts of the given tokens and devices only, and the hourly counts and retries
    /// of the hours and tokens the run's new rows fall in (a small ingest into a large database).
    /// Falls back to a full refresh when split responses were joined (their tokens are not known
    /// beforehand). Must give the same tables as `refresh` (tested).
    /// Send rows with a rowid above `newRows.sends` are the ones this run added (rowids only grow:
    /// a new row gets the largest rowid plus one); `newRows.receipts` are its receipts' apns-ids.
    static func refresh(
        _ db: Database, tokens: Set<Int64>, devices: Set<Int64>,
        newRows: RowMarks
    ) throws {
        if try joinSplitResponses(db) { try refresh(db); return }
        try db.exec(
            """
            CREATE TEMP TABLE IF NOT EXISTS touched_tokens(id INTEGER PRIMARY KEY);
            CREATE TEMP TABLE IF NOT EXISTS touched_devices(id INTEGER PRIMARY KEY);
            DELETE FROM touched_tokens; DELETE FROM touched_devices;
            """)
        let it = try db.prepare("INSERT OR IGNORE INTO touched_tokens(id) VALUES (?1)")
        for t in tokens { it.bind(1, t); try it.run() }
        let id = try db.prepare("INSERT OR IGNORE INTO touched_devices(id) VALUES (?1)")
        for d in devices { id.bind(1, d); try id.run() }
        // Every token a touched device ever registered: its runs (and so its stale intervals) may change.
        try db.exec(
            """
            INSERT OR IGNORE INTO touched_tokens(id)
              SELECT token_id FROM registers WHERE device_id IN (SELECT id FROM touched_devices);
            """)
        let filter = "token_id IN (SELECT id FROM temp.touched_tokens)"
        try PhaseTimer.measure("token facts") { try refreshTokenFacts(db, only: filter) }
        try PhaseTimer.measure("devices") { try DevicePass(db: db, only: true).run() }
        try PhaseTimer.measure("user-only facts") {
            try db.exec("DELETE FROM device_facts WHERE unit >= 'user:' AND unit < 'user;'")
            try refreshUserOnlyFacts(db)
        }
        try PhaseTimer.measure("stale intervals") { try refreshStaleIntervals(db, only: filter) }
        try PhaseTimer.measure("background hourly") {
            try BackgroundHourly.refresh(db, sendsAfter: newRows.sends, receipts: newRows.receipts)
        }
        try PhaseTimer.measure("hourly responses") { try HourlyResponses.add(db, after: newRows.sends) }
        try PhaseTimer.measure("retries") { try Retries.refresh(db, sendsAfter: newRows.sends) }
    }

    /// What a run added (see `refresh(_:tokens:devices:newRows:)`): the send rows above the
    /// largest send rowid before it, and the apns-ids of the receipts it wrote (receipts are keyed
    /// by their identity, not a row id).
    struct RowMarks {
        var sends: Int64
        var receipts: Set<String> = []
        static func now(_ db: Database) throws -> RowMarks {
            RowMarks(sends: try db.scalarInt("SELECT coalesce(max(rowid), 0) FROM sends") ?? 0)
        }
    }

    /// Opt-in facts for observations without a device (settings or registrations that name only
    /// a user), keyed 'user:' and the user's name; devices are handled by DevicePass.
    static func refreshUserOnlyFacts(_ db: Database) throws {
        let key = "'user:' || (SELECT name FROM users WHERE id = user_id)"
        let decided =
            "auth_id IN (\(["authorized", "denied", "provisional", "ephemeral"].map { "\(Schema.labelID($0))" }.joined(separator: ", ")))"
        let authorized = Schema.labelID("authorized"), denied = Schema.labelID("denied")
        let onlyUser = "device_id IS NULL AND user_id IS NOT NULL"
        try db.exec(
            """
            INSERT INTO device_facts(unit, user_id, opted_in, last_seen)
              SELECT unit, max(user_id), min(oi), max(lo) FROM (
                SELECT \(key) AS unit, max(user_id) AS user_id, min(CASE WHEN auth_id = \(authorized) THEN time_ms END) AS oi, max(time_ms) AS lo
                FROM registers WHERE \(onlyUser) AND auth_id IS NOT NULL GROUP BY 1
                UNION ALL
                SELECT \(key), max(user_id), min(CASE WHEN auth_id = \(authorized) THEN time_ms END), max(time_ms) FROM settings WHERE \(onlyUser) GROUP BY 1)
              GROUP BY unit;
            UPDATE device_facts SET opted_out = o.t FROM (
                SELECT o.unit, min(o.t) AS t FROM (
                  SELECT \(key) AS unit, time_ms AS t FROM registers WHERE \(onlyUser) AND auth_id = \(denied)
                  UNION ALL SELECT \(key), time_ms FROM settings WHERE \(onlyUser) AND auth_id = \(denied)) AS o
                JOIN device_facts f ON f.unit = o.unit
                WHERE o.t > f.opted_in GROUP BY o.unit) AS o
              WHERE o.unit = device_facts.unit;
            UPDATE device_facts SET first_decided = d.t, first_decided_auth = (SELECT name FROM labels WHERE id = d.auth_id) FROM (
                SELECT unit, min(t) AS t, auth_id FROM (
                  SELECT \(key) AS unit, min(time_ms) AS t, auth_id FROM registers WHERE \(onlyUser) AND \(decided) GROUP BY 1
                  UNION ALL SELECT \(key), min(time_ms), auth_id FROM settings WHERE \(onlyUser) AND \(decided) GROUP BY 1)
                GROUP BY unit) AS d
              WHERE d.unit = device_facts.unit;
            UPDATE device_facts SET last_token_id = r.token_id, last_reg = r.t FROM (
                SELECT \(key) AS unit, token_id, max(time_ms) AS t FROM registers WHERE \(onlyUser) GROUP BY 1) AS r
              WHERE r.unit = device_facts.unit;
            """)
    }

    /// Joins split `response` records to their `request` by apns_id (whichever arrived first).
    /// The partial index sends_unjoined holds exactly the responses still waiting for their request.
    /// Returns true when some responses were waiting (their tokens' facts may have changed).
    static func joinSplitResponses(_ db: Database) throws -> Bool {
        guard try db.scalarInt("SELECT 1 FROM sends INDEXED BY sends_unjoined WHERE kind = 2 AND token_id IS NULL LIMIT 1") != nil else {
            return false
        }
        let copied = Schema.sendsRequestColumns
        try db.exec(
            """
            UPDATE sends SET \(copied.map { "\($0) = coalesce(sends.\($0), r.\($0))" }.joined(separator: ", "))
            FROM (SELECT apns_id, \(copied.joined(separator: ", ")) FROM sends WHERE kind = 1) AS r
            WHERE sends.kind = 2 AND sends.token_id IS NULL AND \(Schema.apnsMatch("r.apns_id", "sends.apns_id"));
            """)
        return true
    }

    /// Per-token facts: latest registration (env, app version, device) and first 410.
    /// `only` restricts the rebuild to tokens matching an SQL condition on `token_id`.
    /// The latest registration is the greatest (time_ms, line_hash): two in the same millisecond
    /// are ordered by their line hash, arbitrary but the same in every database.
    static func refreshTokenFacts(_ db: Database, only: String?) throws {
        let w = only ?? "1"
        try db.exec(
            """
            DELETE FROM token_facts WHERE \(w);
            -- One pass over the tokens; the first and latest registration of each are key lookups
            -- (registers is keyed by token, then time).
            INSERT INTO token_facts(token_id, first_reg, last_reg, reg_env_id, reg_app_version_id, reg_device_id, reg_user_id)
              SELECT r.token_id, (SELECT min(x.time_ms) FROM registers x WHERE x.token_id = k.token_id), r.time_ms,
                     r.env_id, r.app_version_id, r.device_id, r.user_id
              FROM (SELECT DISTINCT token_id FROM registers WHERE \(w)) AS k
              JOIN registers r ON r.token_id = k.token_id AND (r.time_ms, r.line_hash) = (
                SELECT x.time_ms, x.line_hash FROM registers x WHERE x.token_id = k.token_id ORDER BY x.time_ms DESC, x.line_hash DESC LIMIT 1);
            INSERT OR IGNORE INTO token_facts(token_id) SELECT id FROM tokens WHERE \(w.replacingOccurrences(of: "token_id", with: "id"));
            UPDATE token_facts SET malformed = 1 WHERE \(w) AND token_id IN (SELECT id FROM tokens WHERE malformed = 1);
            UPDATE token_facts SET first_410 = g.t, first_410_ts = g.ts
              FROM (SELECT token_id, min(time_ms) AS t, apns_ts AS ts FROM responses
                    WHERE status = 410 AND token_id IS NOT NULL AND \(w) GROUP BY token_id) AS g
              WHERE g.token_id = token_facts.token_id;
            """)
    }

    /// A send to token T at time t went to a superseded token when the run of T with the latest
    /// start at or before t was superseded before t: so T is stale from each run's superseded_at
    /// until T's next run starts (on any device). Reports count sends inside these intervals.
    static func refreshStaleIntervals(_ db: Database, only: String?) throws {
        let w = only ?? "1"
        try db.exec(
            """
            DELETE FROM token_stale WHERE \(w);
            INSERT INTO token_stale(token_id, stale_from, stale_until)
              SELECT token_id, superseded_at, next_start FROM (
                SELECT token_id, superseded_at,
                       coalesce(lead(start) OVER (PARTITION BY token_id ORDER BY start), 9000000000000000000) AS next_start
                FROM token_runs WHERE \(w))
              WHERE superseded_at IS NOT NULL AND superseded_at < next_start;
            """)
    }
}
