/// The database schema and its migrations. `user_version` holds the schema version.
public enum Schema {
    public static let version: Int64 = 10

    /// The tables of the current version (docs/store.md). Record tables hold small integer ids
    /// of the strings they repeat (dimension tables), the apns-id as 16 bytes when it is a UUID,
    /// and their identity (time_ms, line_hash) in their key; the `*_v` views join the text back.
    static let tables = """
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
            first_time_ms INTEGER, last_time_ms INTEGER,       -- time span of the records read from it
            ambiguous INTEGER NOT NULL DEFAULT 0 -- of the duplicates, those that may have been lines of their own
        );
        CREATE TABLE tokens(
            id INTEGER PRIMARY KEY,
            token TEXT NOT NULL UNIQUE,          -- lower case when hex
            malformed INTEGER NOT NULL DEFAULT 0,
            masked INTEGER NOT NULL DEFAULT 0
        );
        -- The tokens every command masks by their text (TokenMask): read through this at start-up
        -- instead of a scan of every token (0.15 s at 25 M records).
        CREATE INDEX tokens_irregular ON tokens(length(token)) WHERE malformed = 1 OR masked = 1 OR length(token) < 32;
        -- Dimensions: every repeated string once; the record tables hold its id.
        CREATE TABLE topics(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
        CREATE TABLE envs(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
        CREATE TABLE push_types(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
        CREATE TABLE reasons(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
        CREATE TABLE app_versions(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
        CREATE TABLE os_versions(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
        CREATE TABLE devices(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
        CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
        -- Short enumerated values: authorization states, settings, receipt kinds and results.
        CREATE TABLE labels(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
        -- The reason categories (fixed ids, ReasonCategory order) and what may be retried.
        CREATE TABLE categories(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, retryable INTEGER NOT NULL, never_retry INTEGER NOT NULL);
        -- The APNs reasons pushlog knows, their category and status (docs/reports.md: APNs reasons).
        CREATE TABLE reason_taxonomy(reason TEXT PRIMARY KEY COLLATE NOCASE, category TEXT NOT NULL, status INTEGER);

        -- sends keeps a row id: its secondary indexes carry it (4 bytes) instead of the identity (14),
        -- and reports name a response by it. The app's record tables are keyed by their identity.
        \(sendsDDL)
        \(registers.ddl)
        CREATE TABLE settings(
            time_ms INTEGER NOT NULL, line_hash INTEGER NOT NULL, source_id INTEGER, line INTEGER,
            device_id INTEGER, user_id INTEGER, auth_id INTEGER NOT NULL, alert_setting_id INTEGER, sound_setting_id INTEGER,
            badge_setting_id INTEGER, lock_screen_id INTEGER, notification_center_id INTEGER,
            PRIMARY KEY(time_ms, line_hash)
        ) WITHOUT ROWID;
        \(receipts.ddl)
        CREATE TABLE unregisters(
            time_ms INTEGER NOT NULL, line_hash INTEGER NOT NULL, source_id INTEGER, line INTEGER,
            token_id INTEGER NOT NULL, device_id INTEGER, user_id INTEGER,
            PRIMARY KEY(time_ms, line_hash)
        ) WITHOUT ROWID;
        CREATE TABLE rejects(
            id INTEGER PRIMARY KEY,
            source_id INTEGER NOT NULL, line INTEGER NOT NULL, reason TEXT NOT NULL, text TEXT NOT NULL,
            line_hash INTEGER NOT NULL UNIQUE
        );
        CREATE TABLE apple_metrics(
            day TEXT NOT NULL, push_type TEXT NOT NULL, status TEXT NOT NULL, count INTEGER NOT NULL, source_id INTEGER,
            PRIMARY KEY(day, push_type, status)
        );

        -- Derived after each ingest (Derived.refresh): per-token facts reports join on.
        CREATE TABLE token_facts(
            token_id INTEGER PRIMARY KEY,
            first_reg INTEGER, last_reg INTEGER,           -- first and latest registration time (ms)
            reg_env_id INTEGER, reg_app_version_id INTEGER, -- env and app version of the latest registration
            reg_device_id INTEGER, reg_user_id INTEGER,
            first_410 INTEGER, first_410_ts INTEGER,       -- first 410 response time and its APNs timestamp
            malformed INTEGER NOT NULL DEFAULT 0           -- copied from tokens, to save reports a join
        );
        -- Runs of consecutive registrations of one device with the same token; superseded_at is
        -- when the device first registered a different token after the run.
        CREATE TABLE token_runs(
            device_id INTEGER NOT NULL, token_id INTEGER NOT NULL, start INTEGER NOT NULL, last INTEGER NOT NULL,
            superseded_at INTEGER
        );
        CREATE INDEX token_runs_token ON token_runs(token_id, start);
        -- When sends to a token were going to a superseded token: from the moment its device
        -- registered a different token until the token itself was registered again (churn).
        CREATE TABLE token_stale(token_id INTEGER NOT NULL, stale_from INTEGER NOT NULL, stale_until INTEGER NOT NULL);
        -- Per unit (a device's name, or 'user:' and the user's name for settings naming only a user):
        -- the opt-in facts the opt-out report reads. Times in ms.
        CREATE TABLE device_facts(
            unit TEXT PRIMARY KEY, user_id INTEGER,
            opted_in INTEGER,                  -- first authorized observation
            opted_out INTEGER,                 -- first denied observation after opted_in
            first_decided INTEGER, first_decided_auth TEXT, -- first decided observation (not notDetermined) and its value
            last_seen INTEGER,
            last_token_id INTEGER, last_reg INTEGER  -- token and time of the latest registration
        );
        CREATE INDEX device_facts_user ON device_facts(user_id);
        -- Responses and 410s per UTC clock hour, topic and env (0 when absent): reports count whole
        -- hours here and read `sends` only for the partial hours at the ends of a range. HourlyResponses.
        CREATE TABLE hourly_responses(
            hour INTEGER NOT NULL,               -- floor(time_ms / 3600000)
            topic_id INTEGER NOT NULL, env_id INTEGER NOT NULL,
            responses INTEGER NOT NULL, gone INTEGER NOT NULL,
            PRIMARY KEY(hour, topic_id, env_id)
        ) WITHOUT ROWID;
        -- Per UTC clock hour, source, topic and env (0 when absent): the response counts of the
        -- hygiene rules. HourlyResponses.
        CREATE TABLE hygiene_hourly(
            hour INTEGER NOT NULL, source_id INTEGER NOT NULL, topic_id INTEGER NOT NULL, env_id INTEGER NOT NULL,
            responses INTEGER NOT NULL,
            with_headers INTEGER NOT NULL,       -- with a push_type, priority, collapse_id or expiration
            with_payload INTEGER NOT NULL,       -- whose payload was logged (has_alert not NULL)
            with_ids INTEGER NOT NULL,           -- with an apns_id, attempt or collapse_id
            untyped INTEGER NOT NULL,            -- without push_type
            alert_logged INTEGER NOT NULL,       -- push type alert, payload logged
            alert_empty INTEGER NOT NULL,        -- ... without alert, sound or badge
            mutable_logged INTEGER NOT NULL,     -- mutable-content 1, payload logged
            mutable_empty INTEGER NOT NULL,      -- ... without alert
            PRIMARY KEY(hour, source_id, topic_id, env_id)
        ) WITHOUT ROWID;
        \(version6Tables)
        \(repeatRuns)
        """

    /// The runs of repeats a file's read has open at its committed position (RepeatLedger), so a
    /// resumed read numbers identical records as a whole read does; added by version 8.
    static let repeatRuns = """
        -- A record repeated within the occurrence window: its folded time and line hash, how many
        -- identical records its run holds, and the line and stream offset of the last one.
        CREATE TABLE source_repeats(
            source_id INTEGER NOT NULL, key INTEGER NOT NULL,
            count INTEGER NOT NULL, line INTEGER NOT NULL, offset INTEGER NOT NULL,
            PRIMARY KEY(source_id, key)
        ) WITHOUT ROWID;
        """

    /// The derived tables of version 6 (Retries, BackgroundHourly), apart so the migration from
    /// version 5 can create them.
    static let version6Tables = """
        -- Retries of a response that must never be retried (errors.retried_non_retryable, hygiene's
        -- non_retryable_retried): the sends ids of the error and of each of its retries. Retries.
        CREATE TABLE retry_links(
            error_id INTEGER NOT NULL, retry_id INTEGER NOT NULL,
            PRIMARY KEY(error_id, retry_id)
        ) WITHOUT ROWID;
        -- The first retry of each 429 or 5xx response, and whether it came too soon (hygiene's
        -- retry_without_backoff). Retries.
        CREATE TABLE backoff_retries(
            error_id INTEGER PRIMARY KEY,        -- sends.id of the 429/5xx response
            retry_id INTEGER NOT NULL,           -- sends.id of its first retry
            too_soon INTEGER NOT NULL            -- 1: under 1 s after it, or no later than the interval before it
        );
        -- Background pushes per UTC clock hour, token, topic and env (0 when absent), as the silent
        -- report and hygiene's background rules count them: they read whole hours here and the
        -- background_pushes view only for the partial hours at the ends of a range. BackgroundHourly.
        CREATE TABLE background_hourly(
            hour INTEGER NOT NULL, token_id INTEGER NOT NULL, topic_id INTEGER NOT NULL, env_id INTEGER NOT NULL,
            pushes INTEGER NOT NULL,             -- background pushes answered
            accepted INTEGER NOT NULL,           -- ... with status 200
            priorities INTEGER NOT NULL,         -- ... with a priority logged
            priority_not_5 INTEGER NOT NULL,     -- ... whose priority is not 5 (missing: APNs' default, 10)
            with_alert INTEGER NOT NULL,         -- ... whose payload has alert, sound or badge
            received INTEGER NOT NULL,           -- accepted ones with a background receipt
            lags TEXT,                           -- their receipt lags (ms), comma-separated
            PRIMARY KEY(hour, token_id, topic_id, env_id)
        ) WITHOUT ROWID;
        """

    /// Registrations, clustered by token: the per-token reads (token facts, "registered again?",
    /// trace) are key ranges of the table itself, with no second copy in an index. The key holds
    /// the identity; the token is a function of the line, so it adds no new duplicates.
    static let registers = ClusteredTable(
        name: "registers",
        columns: """
            time_ms INTEGER NOT NULL, line_hash INTEGER NOT NULL, source_id INTEGER, line INTEGER,
            token_id INTEGER NOT NULL, device_id INTEGER, user_id INTEGER, env_id INTEGER, app_version_id INTEGER,
            os_version_id INTEGER, auth_id INTEGER, topic_id INTEGER
            """,
        key: "token_id, time_ms, line_hash")

    /// Receipts, clustered by apns-id: every reader looks a receipt up by the push it belongs to
    /// (background receipt times, trace), so the table is that index. The key holds the identity.
    static let receipts = ClusteredTable(
        name: "receipts",
        columns: """
            time_ms INTEGER NOT NULL, line_hash INTEGER NOT NULL, source_id INTEGER, line INTEGER,
            apns_id BLOB NOT NULL, device_id INTEGER, token_id INTEGER, receipt_id INTEGER, result_id INTEGER
            """,
        key: "apns_id, time_ms, line_hash")

    /// `sends.apns_id` (as `column`) equal to `key` (a stored apns-id: a column or apns_key(…)),
    /// in the form that reads the sends_apns index: its 8-byte prefix first, then the whole id.
    static func apnsMatch(_ column: String, _ key: String) -> String {
        "substr(\(column), 1, 8) = substr(\(key), 1, 8) AND \(column) = \(key)"
    }

    /// The apns-id as text, from its stored form (16 bytes: a UUID, read lower case; text:
    /// anything else, as logged). Plain SQL, so the views read
    /// in any SQLite shell.
    static func apnsText(_ c: String) -> String {
        let h = "hex(\(c))"
        let uuid =
            "substr(\(h), 1, 8) || '-' || substr(\(h), 9, 4) || '-' || substr(\(h), 13, 4) || '-' || substr(\(h), 17, 4) || '-' || substr(\(h), 21, 12)"
        return "CASE WHEN typeof(\(c)) <> 'blob' THEN \(c) ELSE lower(\(uuid)) END"
    }

    /// Views that join the dimensions back to text, for ad-hoc SQL, and `responses`, the one
    /// definition of a response (a send or response record with a status: one APNs answer).
    static var views: String {
        func dim(_ table: String, _ column: String, _ alias: String) -> String {
            "(SELECT name FROM \(table) WHERE id = \(alias).\(column))"
        }
        let iso = isoTime
        return """
            CREATE VIEW responses AS SELECT * FROM sends WHERE kind IN (0, 2) AND status IS NOT NULL;
            CREATE VIEW sends_v AS SELECT \(sendsViewSelect)
              FROM sends s;
            CREATE VIEW responses_v AS SELECT * FROM sends_v WHERE kind IN (0, 2) AND status IS NOT NULL;
            CREATE VIEW registers_v AS SELECT r.time_ms, \(iso("r")) AS time, r.line_hash, r.source_id, r.line,
              r.token_id, (SELECT token FROM tokens WHERE id = r.token_id) AS token, \(dim("devices", "device_id", "r")) AS device,
              \(dim("users", "user_id", "r")) AS user, \(dim("envs", "env_id", "r")) AS env,
              \(dim("app_versions", "app_version_id", "r")) AS app_version, \(dim("os_versions", "os_version_id", "r")) AS os_version,
              \(dim("labels", "auth_id", "r")) AS auth, \(dim("topics", "topic_id", "r")) AS topic
              FROM registers r;
            CREATE VIEW settings_v AS SELECT x.time_ms, \(iso("x")) AS time, x.line_hash, x.source_id, x.line,
              \(dim("devices", "device_id", "x")) AS device, \(dim("users", "user_id", "x")) AS user, \(dim("labels", "auth_id", "x")) AS auth,
              \(dim("labels", "alert_setting_id", "x")) AS alert_setting, \(dim("labels", "sound_setting_id", "x")) AS sound_setting,
              \(dim("labels", "badge_setting_id", "x")) AS badge_setting, \(dim("labels", "lock_screen_id", "x")) AS lock_screen,
              \(dim("labels", "notification_center_id", "x")) AS notification_center
              FROM settings x;
            CREATE VIEW receipts_v AS SELECT c.time_ms, \(iso("c")) AS time, c.line_hash, c.source_id, c.line,
              \(apnsText("c.apns_id")) AS apns_id, \(dim("devices", "device_id", "c")) AS device, c.token_id,
              (SELECT token FROM tokens WHERE id = c.token_id) AS token, \(dim("labels", "receipt_id", "c")) AS receipt,
              \(dim("labels", "result_id", "c")) AS result
              FROM receipts c;
            CREATE VIEW unregisters_v AS SELECT u.time_ms, \(iso("u")) AS time, u.line_hash, u.source_id, u.line,
              u.token_id, (SELECT token FROM tokens WHERE id = u.token_id) AS token, \(dim("devices", "device_id", "u")) AS device,
              \(dim("users", "user_id", "u")) AS user
              FROM unregisters u;
            \(backgroundPushesView)
            \(attemptViews)
            \(appleMetricsView)
            """
    }

    /// Apple's delivery metrics with the epoch ms of each day's start (NULL for a day that is not
    /// a date), a relation both engines have: a report written once joins responses to a day by it.
    static let appleMetricsView = appleMetricsView(temporary: false)

    /// The same view, or (`temporary`) as a reader's own TEMP view over a database that lacks it.
    static func appleMetricsView(temporary: Bool) -> String {
        let create = temporary ? "CREATE TEMP VIEW IF NOT EXISTS" : "CREATE VIEW IF NOT EXISTS"
        return """
            \(create) apple_metrics_v AS SELECT day, CAST(strftime('%s', day) AS INTEGER) * 1000 AS day_ms, push_type, status, count
              FROM apple_metrics;
            """
    }

    /// Transport failures (no APNs answer: TLS, DNS, timeouts), read through their partial index
    /// sends_transport (which names the category's fixed id), and attempts: the responses and the
    /// transport failures of sends and response records, what an incident's error share divides by.
    static let attemptViews = attemptViews(temporary: false)

    /// The same views, or (`temporary`) as a reader's own TEMP views over a database that lacks them.
    static func attemptViews(temporary: Bool) -> String {
        let create = temporary ? "CREATE TEMP VIEW IF NOT EXISTS" : "CREATE VIEW IF NOT EXISTS"
        return """
            \(create) transport_failures AS SELECT * FROM sends WHERE category_id = \(transportCategory);
            \(create) attempts AS SELECT * FROM sends
              WHERE kind IN (0, 2) AND (status IS NOT NULL OR category_id = \(transportCategory));
            """
    }

    /// Values with fixed ids, so SQL and the partial indexes can name them without a lookup:
    /// envs, push types and labels in this order (id = position + 1).
    static let seededEnvs = ["production", "sandbox"]
    static let seededPushTypes = PushType.names.map(\.description)
    static let seededLabels = [
        "authorized", "denied", "provisional", "ephemeral", "notDetermined",
        "enabled", "disabled", "notSupported", "background", "presented", "opened",
        "dismissed", "action", "newData", "noData", "failed",
    ]

    /// The fixed id of a seeded label, push type or env (id = position in its list + 1), for SQL
    /// and partial indexes that must name a value without a lookup.
    static func labelID(_ name: String) -> Int64 { seededID(name, seededLabels) }
    static func pushTypeID(_ name: String) -> Int64 { seededID(name, seededPushTypes) }
    static func seededID(_ name: String, _ list: [String]) -> Int64 {
        guard let i = list.firstIndex(of: name) else { preconditionFailure("\(name) is not a seeded value") }
        return Int64(i + 1)
    }

    /// What makes a push a background push, on `sends` columns: the condition of the
    /// background_pushes view and of its index sends_background.
    static let backgroundRule =
        "push_type_id = \(pushTypeID("background")) OR (push_type_id IS NULL AND content_available = 1 AND coalesce(has_alert, 0) = 0 AND coalesce(has_sound, 0) = 0 AND coalesce(has_badge, 0) = 0)"

    /// A background push answered by APNs, as the view and its partial index both spell it (the
    /// planner uses the index only for a query that names the same terms).
    static let backgroundWhere = "kind IN (0, 2) AND status IS NOT NULL AND (\(backgroundRule))"

    /// `background_pushes`: the background pushes APNs answered (as silent counts them), read from sends
    /// through sends_background, in the columns of the table it replaced (and the sends id).
    /// receipt_ms: the first background receipt (the seeded label `background`) for an accepted push's apns-id.
    static let backgroundPushesView = """
        CREATE VIEW background_pushes AS SELECT \(hourOf("time_ms")) AS hour, coalesce(token_id, 0) AS token_id, time_ms, line_hash,
          status, priority, coalesce(has_alert = 1 OR has_sound = 1 OR has_badge = 1, 0) AS with_alert, topic_id, env_id,
          CASE WHEN status = 200 AND apns_id IS NOT NULL THEN
            (SELECT min(rc.time_ms) FROM receipts rc WHERE rc.apns_id = sends.apns_id AND rc.receipt_id = \(labelID("background"))) END AS receipt_ms, id
          FROM sends WHERE \(backgroundWhere);
        """

    /// The UTC clock hour of a time in ms (hours since 1970, rounded down as bucket_start rounds:
    /// SQLite's integer division rounds toward zero, which would put the hour before 1970 into hour 0).
    static func hourOf(_ ms: String) -> String {
        "((\(ms) - CASE WHEN \(ms) < 0 THEN 3599999 ELSE 0 END) / 3600000)"
    }

    /// The id of the transport category (no APNs response), seeded in ReasonCategory order.
    static var transportCategory: Int { ReasonCategory.allCases.firstIndex(of: .transport)! + 1 }

    /// Secondary indexes (name, SQL): built after a bulk load, since sorting is cheaper than
    /// row-by-row upkeep; kept up to date by small ingests. Each one's cost and the report it
    /// serves are in BENCHMARKS.md.
    static let secondaryIndexes: [(name: String, sql: String)] = [
        // Per token; covering for the per-token aggregation of env-mismatch (integers only: small).
        (
            "sends_token",
            "CREATE INDEX IF NOT EXISTS sends_token ON sends(token_id, env_id, time_ms, kind, status, reason_id, category_id, topic_id)"
        ),
        // The apns-id's first 8 bytes: as selective as all 16 (random bits), at half the size.
        // A lookup names the same expression, then the whole id (apnsMatch).
        ("sends_apns", "CREATE INDEX IF NOT EXISTS sends_apns ON sends(substr(apns_id, 1, 8))"),
        // Covering for the device pass (DevicePass reads them in order without touching the tables).
        ("registers_device", "CREATE INDEX IF NOT EXISTS registers_device ON registers(device_id, time_ms, token_id, auth_id, user_id)"),
        ("settings_device", "CREATE INDEX IF NOT EXISTS settings_device ON settings(device_id, time_ms, auth_id, user_id)"),
        ("unregisters_token", "CREATE INDEX IF NOT EXISTS unregisters_token ON unregisters(token_id, time_ms)"),
        ("rejects_source", "CREATE INDEX IF NOT EXISTS rejects_source ON rejects(source_id, line)"),
        ("sends_gone", "CREATE INDEX IF NOT EXISTS sends_gone ON sends(token_id, time_ms) WHERE status = 410"),
        // Failures (2 % of sends), covering what errors, hygiene and silent read of them: their
        // scans touch no sends rows (0.13 -> 0.04 s at 2.5 M records, for 0.8 MB more).
        (
            "sends_errors",
            """
            CREATE INDEX IF NOT EXISTS sends_errors ON sends(time_ms, status, reason_id, category_id, token_id, topic_id, env_id, push_type_id, kind) \
            WHERE status <> 200
            """
        ),
        // Transport failures (no status), for the errors report and the weekly incidents.
        ("sends_transport", "CREATE INDEX IF NOT EXISTS sends_transport ON sends(time_ms) WHERE category_id = \(transportCategory)"),
        ("sends_unjoined", "CREATE INDEX IF NOT EXISTS sends_unjoined ON sends(apns_id) WHERE kind = 2 AND token_id IS NULL"),
        // Background pushes (the background_pushes view): 5.6 MB at 2.5 M records, where a table
        // of them was a second copy of 15 MB.
        ("sends_background", "CREATE INDEX IF NOT EXISTS sends_background ON sends(time_ms) WHERE \(backgroundWhere)"),
    ]

    static var secondaryIndexNames: [String] { secondaryIndexes.map(\.name) }

    /// Indexes an earlier version of this schema had and this one does not (dropped on sight):
    /// registers_token and receipts_apns became the keys of their tables (version 5).
    static let retiredIndexes = ["registers_token", "receipts_apns"]

    /// Drops every secondary index whose stored definition differs from the current one (an older
    /// pushlog's), so the next `createSecondaryIndexes` builds it as it is defined now.
    static func dropOutdatedIndexes(_ db: Database) throws {
        for name in retiredIndexes { try db.exec("DROP INDEX IF EXISTS \(name)") }
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
    static func createSecondaryIndexes(_ db: Database) throws {
        for (name, sql) in secondaryIndexes { try PhaseTimer.measure(name) { try db.exec(sql) } }
    }

    /// Brings a writable database to the current version: applies SchemaMigration.all in order
    /// (a new database, version 0, is created whole), each step in a transaction of its own that
    /// also sets the version it reaches.
    static func migrate(_ db: Database) throws {
        let start = try db.scalarInt("PRAGMA user_version") ?? 0
        if start > version {
            throw StoreError.schemaNewer(found: start, supported: version)
        }
        var current = start
        var vacuum = false
        while current < version {
            guard let step = SchemaMigration.all.first(where: { $0.from.contains(current) }) else {
                throw StoreError.schemaUnknown(found: current)
            }
            try db.exec("BEGIN IMMEDIATE")
            do {
                try step.apply(db)
                try db.exec("PRAGMA user_version = \(step.to)")
                try db.exec("COMMIT")
            } catch {
                try? db.exec("ROLLBACK")
                throw error
            }
            current = step.to
            vacuum = vacuum || (start > 0 && step.vacuum)
        }
        // The old tables' pages are free now: give them back to the disk (a copy of the new,
        // smaller database; killed half-way, the migrated database stays as it was).
        if vacuum { try db.exec("VACUUM") }
    }

    /// A new database: the tables, views and indexes of the current version.
    static func createCurrent(_ db: Database) throws {
        try create(db)
        try createSecondaryIndexes(db)
    }

    /// Creates the tables and views of the current version with their seeded rows.
    static func create(_ db: Database) throws {
        try db.exec(tables)
        try db.exec(views)
        try seed(db)
    }

    static func seed(_ db: Database) throws {
        let r = try db.prepare("INSERT INTO reason_taxonomy(reason, category, status) VALUES (?, ?, ?)")
        for (reason, cat, status) in ReasonTaxonomy.reasons {
            r.bind(1, reason); r.bind(2, cat.rawValue); r.bind(3, Int64(status))
            try r.run()
        }
        let c = try db.prepare("INSERT INTO categories(id, name, retryable, never_retry) VALUES (?, ?, ?, ?)")
        for (i, cat) in ReasonCategory.allCases.enumerated() {
            c.bind(1, Int64(i + 1)); c.bind(2, cat.rawValue); c.bind(3, Int64(cat.retryable ? 1 : 0));
            c.bind(4, Int64(cat.neverRetry ? 1 : 0))
            try c.run()
        }
        for (table, names) in [
            ("envs", seededEnvs), ("push_types", seededPushTypes), ("labels", seededLabels),
            ("reasons", ReasonTaxonomy.reasons.map(\.0)),
        ] {
            let s = try db.prepare("INSERT INTO \(table)(id, name) VALUES (?, ?)")
            for (i, name) in names.enumerated() {
                s.bind(1, Int64(i + 1)); s.bind(2, name)
                try s.run()
            }
        }
    }
}
