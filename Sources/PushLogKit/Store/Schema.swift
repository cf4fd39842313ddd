/// The database schema and its migrations. `user_version` holds the schema version.
public enum Schema {
    public static let version: Int64 = 3

    /// Tables of version 1. Every record table is keyed for identity by (t, h1, h2): the record
    /// time leads, so inserts land near the end of the tree (see PERF-NOTES).
    static let v1 = """
    -- derived_stale = 1 from the first committed batch until the derived facts are rebuilt, so a
    -- run killed between loading and finalizing is finished by the next one.
    CREATE TABLE meta(key TEXT PRIMARY KEY, value);
    INSERT INTO meta(key, value) VALUES ('derived_stale', 0);
    CREATE TABLE sources(
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL UNIQUE,
        format TEXT,
        size INTEGER, mtime INTEGER, head_len INTEGER, head_hash TEXT,
        offset INTEGER NOT NULL DEFAULT 0,   -- decompressed bytes consumed by committed batches
        lines INTEGER NOT NULL DEFAULT 0,    -- lines consumed by committed batches
        complete INTEGER NOT NULL DEFAULT 0,
        error TEXT,
        n_send INTEGER NOT NULL DEFAULT 0, n_request INTEGER NOT NULL DEFAULT 0,
        n_response INTEGER NOT NULL DEFAULT 0, n_register INTEGER NOT NULL DEFAULT 0,
        n_settings INTEGER NOT NULL DEFAULT 0, n_receipt INTEGER NOT NULL DEFAULT 0,
        n_unregister INTEGER NOT NULL DEFAULT 0,
        duplicates INTEGER NOT NULL DEFAULT 0, rejects INTEGER NOT NULL DEFAULT 0,
        skipped INTEGER NOT NULL DEFAULT 0, ignored INTEGER NOT NULL DEFAULT 0,
        first_ingest INTEGER, last_ingest INTEGER,
        first_t INTEGER, last_t INTEGER        -- time span of the records read from it
    );
    CREATE TABLE tokens(
        id INTEGER PRIMARY KEY,
        token TEXT NOT NULL UNIQUE,          -- lower case when hex
        malformed INTEGER NOT NULL DEFAULT 0,
        masked INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE sends(
        id INTEGER PRIMARY KEY,
        t INTEGER NOT NULL, h1 INTEGER NOT NULL, h2 INTEGER NOT NULL,
        src INTEGER, line INTEGER,
        kind INTEGER NOT NULL,               -- 0 send, 1 request, 2 response
        token_id INTEGER, apns_id TEXT, env TEXT, topic TEXT, push_type TEXT, priority INTEGER,
        collapse_id TEXT, expiration INTEGER, payload_bytes INTEGER,
        content_available INTEGER, mutable_content INTEGER, has_alert INTEGER, has_sound INTEGER, has_badge INTEGER,
        aps_category TEXT, thread_id TEXT, interruption_level TEXT, relevance REAL, custom_keys TEXT,
        status INTEGER, reason TEXT, category TEXT, apns_ts INTEGER, apns_unique_id TEXT,
        latency_ms REAL, attempt INTEGER, error TEXT,
        UNIQUE(t, h1, h2)
    );
    CREATE TABLE registers(
        id INTEGER PRIMARY KEY,
        t INTEGER NOT NULL, h1 INTEGER NOT NULL, h2 INTEGER NOT NULL, src INTEGER, line INTEGER,
        token_id INTEGER NOT NULL, device TEXT, user TEXT, env TEXT, app_version TEXT, os_version TEXT,
        auth TEXT, topic TEXT,
        UNIQUE(t, h1, h2)
    );
    CREATE TABLE settings(
        id INTEGER PRIMARY KEY,
        t INTEGER NOT NULL, h1 INTEGER NOT NULL, h2 INTEGER NOT NULL, src INTEGER, line INTEGER,
        device TEXT, user TEXT, auth TEXT NOT NULL, alert_setting TEXT, sound_setting TEXT, badge_setting TEXT,
        lock_screen TEXT, notification_center TEXT,
        UNIQUE(t, h1, h2)
    );
    CREATE TABLE receipts(
        id INTEGER PRIMARY KEY,
        t INTEGER NOT NULL, h1 INTEGER NOT NULL, h2 INTEGER NOT NULL, src INTEGER, line INTEGER,
        apns_id TEXT NOT NULL, device TEXT, token_id INTEGER, receipt TEXT, result TEXT,
        UNIQUE(t, h1, h2)
    );
    CREATE TABLE unregisters(
        id INTEGER PRIMARY KEY,
        t INTEGER NOT NULL, h1 INTEGER NOT NULL, h2 INTEGER NOT NULL, src INTEGER, line INTEGER,
        token_id INTEGER NOT NULL, device TEXT, user TEXT,
        UNIQUE(t, h1, h2)
    );
    CREATE TABLE rejects(
        id INTEGER PRIMARY KEY,
        src INTEGER NOT NULL, line INTEGER NOT NULL, reason TEXT NOT NULL, text TEXT NOT NULL,
        h1 INTEGER NOT NULL, h2 INTEGER NOT NULL,
        UNIQUE(h1, h2)
    );
    CREATE TABLE apple_metrics(
        day TEXT NOT NULL, push_type TEXT NOT NULL, status TEXT NOT NULL, count INTEGER NOT NULL, src INTEGER,
        PRIMARY KEY(day, push_type, status)
    );
    CREATE TABLE reasons(reason TEXT PRIMARY KEY COLLATE NOCASE, category TEXT NOT NULL, status INTEGER);
    -- Derived after each ingest (Derived.refresh): per-token facts reports join on.
    CREATE TABLE token_facts(
        token_id INTEGER PRIMARY KEY,
        first_reg INTEGER, last_reg INTEGER,           -- first and latest registration time
        reg_env TEXT, reg_app_version TEXT,            -- env and app version of the latest registration
        reg_device TEXT, reg_user TEXT,
        first_410 INTEGER, first_410_ts INTEGER,       -- first 410 response time and its APNs timestamp
        malformed INTEGER NOT NULL DEFAULT 0           -- copied from tokens, to save reports a join
    );
    -- Runs of consecutive registrations of one device with the same token; superseded_at is
    -- when the device first registered a different token after the run.
    CREATE TABLE token_runs(
        device TEXT NOT NULL, token_id INTEGER NOT NULL, start INTEGER NOT NULL, last INTEGER NOT NULL,
        superseded_at INTEGER
    );
    CREATE INDEX token_runs_token ON token_runs(token_id, start);
    -- When sends to a token were going to a superseded token: from the moment its device
    -- registered a different token until the token itself was registered again (churn).
    CREATE TABLE token_stale(token_id INTEGER NOT NULL, from_t INTEGER NOT NULL, to_t INTEGER NOT NULL);
    -- Per device (or user-only settings, keyed 'user:ID'): the opt-in facts of SPEC §4 opt-out.
    CREATE TABLE device_facts(
        dkey TEXT PRIMARY KEY, user TEXT,
        opt_in INTEGER,            -- first authorized observation
        off INTEGER,               -- first denied observation after opt_in
        fd_t INTEGER, fd_auth TEXT, -- first decided observation (not notDetermined) and its value
        last_obs INTEGER,
        last_token INTEGER, last_reg INTEGER  -- token and time of the latest registration
    );
    CREATE INDEX device_facts_user ON device_facts(user);
    CREATE TABLE categories(category TEXT PRIMARY KEY, retryable INTEGER NOT NULL, never_retry INTEGER NOT NULL);
    """

    /// Added in version 2. A database of version 1 gets them with derived_stale = 1, so the next
    /// ingest fills them.
    static let v2 = """
    -- Background pushes answered by APNs (SPEC §4 silent), one row per send or response, clustered
    -- by clock hour and token: the per-token-hour load is a scan, not a sort, a time range is a
    -- key range, and rows arriving in time order land at the end of the tree. rt is the first
    -- background receipt for the apns_id (accepted pushes only). Derived.refreshBackground.
    CREATE TABLE bg_pushes(
        hour INTEGER NOT NULL,               -- t / 3600000
        token_id INTEGER NOT NULL,           -- 0 when the record names no token
        t INTEGER NOT NULL, h1 INTEGER NOT NULL, h2 INTEGER NOT NULL,
        status INTEGER NOT NULL, priority INTEGER, with_alert INTEGER NOT NULL,
        topic TEXT, env TEXT, apns_id TEXT, rt INTEGER,
        PRIMARY KEY(hour, token_id, t, h1, h2)
    ) WITHOUT ROWID;
    -- Responses (sends and responses with a status) and 410s per UTC clock hour, topic and env
    -- ('' when absent): reports count whole hours here and read `sends` only for the partial
    -- hours at the ends of a range. HourlyResponses.
    CREATE TABLE resp_hourly(
        hour INTEGER NOT NULL,               -- floor(t / 3600000)
        topic TEXT NOT NULL, env TEXT NOT NULL,
        responses INTEGER NOT NULL, gone INTEGER NOT NULL,
        PRIMARY KEY(hour, topic, env)
    ) WITHOUT ROWID;
    """

    /// Added in version 3 (the hygiene report); an older database gets it with derived_stale = 1.
    static let v3 = """
    -- Per UTC clock hour, source, topic and env ('' when absent): the response counts of the
    -- hygiene rules, so the report reads whole hours here and `sends` only for the partial hours
    -- at the ends of a range. HourlyResponses.
    CREATE TABLE hygiene_hourly(
        hour INTEGER NOT NULL, src INTEGER NOT NULL, topic TEXT NOT NULL, env TEXT NOT NULL,
        responses INTEGER NOT NULL,
        with_headers INTEGER NOT NULL,       -- with a push_type, priority, collapse_id or expiration
        with_payload INTEGER NOT NULL,       -- whose payload was logged (has_alert not NULL)
        with_ids INTEGER NOT NULL,           -- with an apns_id, attempt or collapse_id
        untyped INTEGER NOT NULL,            -- without push_type
        alert_n INTEGER NOT NULL,            -- push type alert, payload logged
        alert_v INTEGER NOT NULL,            -- ... without alert, sound or badge
        mutable_n INTEGER NOT NULL,          -- mutable-content 1, payload logged
        mutable_v INTEGER NOT NULL,          -- ... without alert
        PRIMARY KEY(hour, src, topic, env)
    ) WITHOUT ROWID;
    """

    /// The SPEC §4 rule for a background push, on `sends` columns; the partial index
    /// sends_background has the same WHERE, so the planner uses it.
    public static let backgroundRule = "push_type = 'background' OR (push_type IS NULL AND content_available = 1 AND coalesce(has_alert, 0) = 0 AND coalesce(has_sound, 0) = 0 AND coalesce(has_badge, 0) = 0)"

    /// Secondary indexes (name, SQL): built after a bulk load, since sorting is cheaper than
    /// row-by-row upkeep; kept up to date by small ingests.
    public static let secondaryIndexes: [(name: String, sql: String)] = [
        // Per token, and covering for the per-token aggregation of env-mismatch (no table reads).
        ("sends_token", "CREATE INDEX IF NOT EXISTS sends_token ON sends(token_id, env, t, kind, status, reason, category, topic)"),
        ("sends_apns", "CREATE INDEX IF NOT EXISTS sends_apns ON sends(apns_id)"),
        // Covering for the per-token facts (Derived.refreshTokenFacts reads it in order).
        ("registers_token", "CREATE INDEX IF NOT EXISTS registers_token ON registers(token_id, t, env, app_version, device, user)"),
        // Covering for the device pass (DevicePass reads them in order without touching the tables).
        ("registers_device", "CREATE INDEX IF NOT EXISTS registers_device ON registers(device, t, token_id, auth, user)"),
        ("settings_device", "CREATE INDEX IF NOT EXISTS settings_device ON settings(device, t, auth, user)"),
        ("receipts_apns", "CREATE INDEX IF NOT EXISTS receipts_apns ON receipts(apns_id, receipt, t)"),
        ("unregisters_token", "CREATE INDEX IF NOT EXISTS unregisters_token ON unregisters(token_id, t)"),
        ("rejects_src", "CREATE INDEX IF NOT EXISTS rejects_src ON rejects(src, line)"),
        ("sends_gone", "CREATE INDEX IF NOT EXISTS sends_gone ON sends(token_id, t) WHERE status = 410"),
        ("sends_errors", "CREATE INDEX IF NOT EXISTS sends_errors ON sends(t) WHERE status <> 200"),
        // Transport failures (no status), for the errors report and the weekly incidents.
        ("sends_transport", "CREATE INDEX IF NOT EXISTS sends_transport ON sends(t) WHERE category = 'transport'"),
        ("sends_unjoined", "CREATE INDEX IF NOT EXISTS sends_unjoined ON sends(apns_id) WHERE kind = 2 AND token_id IS NULL"),
        // Background pushes by the rule of SPEC §4 (Derived.refreshBackground reads them through it).
        ("sends_background", "CREATE INDEX IF NOT EXISTS sends_background ON sends(t) WHERE \(backgroundRule)"),
    ]

    public static var secondaryIndexNames: [String] { secondaryIndexes.map(\.name) }

    /// Drops every secondary index whose stored definition differs from the current one (an older
    /// pushlog's), so the next `createSecondaryIndexes` builds it as it is defined now.
    public static func dropOutdatedIndexes(_ db: Database) throws {
        let stored = try db.prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?1")
        for (name, sql) in secondaryIndexes {
            stored.bind(1, name)
            let current = try stored.step() ? stored.string(0) : nil
            stored.reset()
            if let current, current != sql.replacingOccurrences(of: "IF NOT EXISTS ", with: "") {
                try db.exec("DROP INDEX \(name)")
            }
        }
    }

    /// Creates whichever secondary index is missing.
    public static func createSecondaryIndexes(_ db: Database) throws {
        for (name, sql) in secondaryIndexes { try PhaseTimer.measure(name) { try db.exec(sql) } }
    }

    /// Brings a writable database to the current version.
    public static func migrate(_ db: Database) throws {
        let current = try db.scalarInt("PRAGMA user_version") ?? 0
        if current > version {
            throw StoreError.schemaNewer(found: current, supported: version)
        }
        guard current < version else {
            // Categories added since the database was created (transport); a no-op once present.
            try seedNewCategories(db)
            return
        }
        try db.exec("BEGIN IMMEDIATE")
        do {
            if current == 0 {
                try db.exec(v1)
                try seedTaxonomy(db)
                try createSecondaryIndexes(db)
            }
            if current < 2 {
                try db.exec(v2)
                if current == 1 { try db.exec("UPDATE meta SET value = 1 WHERE key = 'derived_stale'") }
            }
            if current < 3 {
                try db.exec(v3)
                if current >= 1 { try db.exec("UPDATE meta SET value = 1 WHERE key = 'derived_stale'") }
            }
            try db.exec("PRAGMA user_version = \(version)")
            try db.exec("COMMIT")
        } catch {
            try? db.exec("ROLLBACK")
            throw error
        }
    }

    static func seedNewCategories(_ db: Database) throws {
        let known = try db.scalarInt("SELECT count(*) FROM categories") ?? 0
        guard known < Int64(ReasonCategory.allCases.count) else { return }
        let c = try db.prepare("INSERT OR IGNORE INTO categories(category, retryable, never_retry) VALUES (?, ?, ?)")
        for cat in ReasonCategory.allCases {
            c.bind(1, cat.rawValue); c.bind(2, Int64(cat.retryable ? 1 : 0)); c.bind(3, Int64(cat.neverRetry ? 1 : 0))
            try c.run()
        }
    }

    static func seedTaxonomy(_ db: Database) throws {
        let r = try db.prepare("INSERT INTO reasons(reason, category, status) VALUES (?, ?, ?)")
        for (reason, cat, status) in ReasonTaxonomy.reasons {
            r.bind(1, reason); r.bind(2, cat.rawValue); r.bind(3, Int64(status))
            try r.run()
        }
        let c = try db.prepare("INSERT INTO categories(category, retryable, never_retry) VALUES (?, ?, ?)")
        for cat in ReasonCategory.allCases {
            c.bind(1, cat.rawValue); c.bind(2, Int64(cat.retryable ? 1 : 0)); c.bind(3, Int64(cat.neverRetry ? 1 : 0))
            try c.run()
        }
    }
}
