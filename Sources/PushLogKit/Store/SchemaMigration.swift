/// One step of the schema: brings a database of a version in `from` to version `to`.
struct Migration: Sendable {
    /// The versions it applies to.
    let from: ClosedRange<Int64>
    /// The version the database has after it.
    let to: Int64
    /// What it changes, for people reading the list.
    let name: String
    /// Whether it frees pages worth giving back to the disk (a VACUUM after the last step).
    var vacuum = true
    let apply: @Sendable (Database) throws -> Void
    /// For a step that only adds views: the same views as a reader's TEMP views, so a database
    /// that has not met the new version's first ingest yet still reads, unchanged on disk.
    var onReader: (@Sendable (Database) throws -> Void)? = nil
}

/// The steps that bring a database to the current schema, in order: a new one (version 0) is
/// created whole, an older one migrated. `Schema.migrate` applies each whose `from` holds the
/// database's version, one transaction each (a run killed half-way leaves the last version it
/// committed, and the next run goes on from there), until the current version. A migration changes tables, views and indexes; where derived facts change it only
/// marks them stale (meta.derived_stale), and the ingest that opened the database rebuilds them.
///
/// To change the schema: bump `Schema.version`, change `Schema`'s tables and views (a new
/// database gets them from there), and append a step from the previous version here.
enum SchemaMigration {
    static let all: [Migration] = [
        Migration(from: 0...0, to: Schema.version, name: "a new database", apply: Schema.createCurrent),
        // The first layout's tables hold text columns and a 128-bit identity: they are copied into
        // the current schema, which this step creates whole (so it ends at the current version).
        Migration(from: 1...3, to: Schema.version, name: "text columns to dimension ids", apply: fromVersion3),
        Migration(from: 4...4, to: 5, name: "registers keyed by token, receipts by apns-id", apply: fromVersion4),
        Migration(from: 5...5, to: 6, name: "retry links, background hourly, background_pushes a view", apply: fromVersion5),
        Migration(
            from: 6...6, to: 7, name: "views transport_failures and attempts", vacuum: false,
            apply: { try $0.exec(Schema.attemptViews) }, onReader: { try $0.exec(Schema.attemptViews(temporary: true)) }),
        // Only the ingest reads the new table: a reader needs nothing.
        Migration(
            from: 7...7, to: 8, name: "runs of repeats kept with a file's resume position", vacuum: false,
            apply: addRepeatRuns, onReader: { _ in }),
        // A reader sees the column through a TEMP view of the table's name (temp objects come
        // first in name resolution), the file unchanged.
        Migration(
            from: 8...8, to: 9, name: "sources count the records a rotation made ambiguous", vacuum: false,
            apply: addAmbiguous,
            onReader: { try $0.exec("CREATE TEMP VIEW sources AS SELECT *, 0 AS ambiguous FROM main.sources") }),
        Migration(
            from: 9...9, to: 10, name: "view apple_metrics_v", vacuum: false,
            apply: { try $0.exec(Schema.appleMetricsView) }, onReader: { try $0.exec(Schema.appleMetricsView(temporary: true)) }),
    ]

    /// Version 7: the table of open runs of repeats (a step from an older version may have
    /// created the current tables already).
    static func addRepeatRuns(_ db: Database) throws {
        if try db.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'source_repeats'") == 0 {
            try db.exec(Schema.repeatRuns)
        }
    }

    /// Version 8: the sources' count of ambiguous records (a step from an older version may have
    /// created the current tables already).
    static func addAmbiguous(_ db: Database) throws {
        if try db.scalarInt("SELECT count(*) FROM pragma_table_info('sources') WHERE name = 'ambiguous'") == 0 {
            try db.exec("ALTER TABLE sources ADD COLUMN ambiguous INTEGER NOT NULL DEFAULT 0")
        }
    }

    /// Versions 1-3 (text columns, 128-bit identity): the old tables are renamed, the new ones
    /// created, the records copied with their ids (strings become dimension ids, UUID apns-ids 16
    /// bytes, the identity's two hash halves folded as the writer folds them) and the old tables
    /// dropped; the derived facts are left for the ingest to rebuild.
    static func fromVersion3(_ db: Database) throws {
        // Out of the way: every old index (their names are reused), every old table renamed.
        for index in try names(db, "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL") {
            try db.exec("DROP INDEX \"\(index)\"")
        }
        let old = try names(db, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        for table in old { try db.exec("ALTER TABLE \"\(table)\" RENAME TO \"v3_\(table)\"") }
        try Schema.create(db)
        try copy(db)
        for table in old { try db.exec("DROP TABLE \"v3_\(table)\"") }
        // The planner's statistics describe the old tables and indexes (some names are reused):
        // forget them; the ingest's closing PRAGMA optimize gathers new ones.
        if try db.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_stat1'") == 1 {
            try db.exec("DELETE FROM sqlite_stat1")
        }
        try Schema.createSecondaryIndexes(db)
        try markDerivedStale(db)
    }

    /// Gives a reader of an older database the views it lacks, when every step from `version`
    /// to the current one only adds views; false when a step changes what is stored (the
    /// database must be migrated by an ingest first).
    static func readAsCurrent(_ db: Database, version: Int64) throws -> Bool {
        var steps: [Migration] = []
        var current = version
        while current < Schema.version {
            guard current > 0, let step = all.first(where: { $0.from.contains(current) }), step.onReader != nil else { return false }
            steps.append(step)
            current = step.to
        }
        try db.withoutReadOnlyGuard { for step in steps { try step.onReader?(db) } }
        return true
    }

    /// Marks every derived fact for a rebuild: readers refuse the database until the ingest that
    /// migrated it has rebuilt them (Ingester.finalize).
    static func markDerivedStale(_ db: Database) throws {
        try db.exec("UPDATE meta SET value = 1 WHERE key = 'derived_stale'")
    }

    /// Version 4 to 5: `registers` clustered by token and `receipts` by apns-id (their covering
    /// indexes registers_token and receipts_apns become the tables), and sends_apns on the
    /// apns-id's first 8 bytes. The rows are copied in key order (the VACUUM after the migration
    /// packs them). Runs inside the caller's transaction.
    static func fromVersion4(_ db: Database) throws {
        // A view of this name replaces the table in version 6 (fromVersion5, which follows).
        try db.exec("DROP TABLE background_pushes")
        // The views name the tables (a rename checks them): out of the way until the end, the
        // user's own too (kept as written, with any index of theirs on the two tables).
        let ours = ["registers_device"] + Schema.retiredIndexes
        let theirs = try names(
            db,
            """
            SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND (type = 'view' AND name NOT IN (\(viewNames))
              OR type = 'index' AND tbl_name IN ('registers', 'receipts') AND name NOT IN (\(ours.map { "'\($0)'" }.joined(separator: ", "))))
            ORDER BY type = 'index', rowid
            """)
        for view in try names(db, "SELECT name FROM sqlite_master WHERE type = 'view'") {
            try db.exec("DROP VIEW \"\(view)\"")
        }
        for t in ClusteredTable.all {
            try db.exec(
                """
                ALTER TABLE \(t.name) RENAME TO v4_\(t.name);
                \(t.ddl)
                INSERT INTO \(t.name) SELECT * FROM v4_\(t.name) ORDER BY \(t.key);
                DROP TABLE v4_\(t.name);
                """)
        }
        // Statistics of the old tables' indexes would mislead the planner until the next optimize.
        if try db.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_stat1'") == 1 {
            try db.exec("DELETE FROM sqlite_stat1 WHERE tbl IN ('registers', 'receipts')")
        }
        try db.exec(Schema.views)
        for sql in theirs { try db.exec(sql) }
        try Schema.dropOutdatedIndexes(db)
        try Schema.createSecondaryIndexes(db)
        try db.exec("PRAGMA analysis_limit = 1000; ANALYZE registers; ANALYZE receipts; ANALYZE sends_apns")
        // Token facts pick the latest registration by (time_ms, line_hash) now: rebuilt, every
        // derived fact answers as a fresh database's.
        try markDerivedStale(db)
    }

    /// Version 5 to 6: `retry_links` and `backoff_retries`, found from the records;
    /// `background_hourly`; the table `background_pushes` (a second copy of background sends)
    /// becomes a view of sends with its index sends_background; sends_errors covers what reports
    /// read of a failure.
    static func fromVersion5(_ db: Database) throws {
        if try db.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'background_pushes'") == 1 {
            try db.exec("DROP TABLE background_pushes; \(Schema.backgroundPushesView)")
        }
        try db.exec(Schema.version6Tables)
        try Schema.dropOutdatedIndexes(db)
        try Schema.createSecondaryIndexes(db)
        try db.exec("PRAGMA analysis_limit = 1000; ANALYZE sends_errors; ANALYZE sends_background")
        // retry_links, backoff_retries and background_hourly are empty until rebuilt.
        try markDerivedStale(db)
    }

    /// pushlog's own views (Schema.views), which the migrations drop and create again.
    static let viewNames = [
        "responses", "sends_v", "responses_v", "registers_v", "settings_v", "receipts_v", "unregisters_v", "background_pushes",
        "transport_failures", "attempts", "apple_metrics_v",
    ]
    .map { "'\($0)'" }.joined(separator: ", ")

    /// Push types in lower case, as the parser now writes them (EventBuilder.normalizePushType).
    static let pushType = """
        CASE WHEN lower(push_type) IN (\(Schema.seededPushTypes.map { "'\($0)'" }.joined(separator: ", "))) THEN lower(push_type) \
        ELSE push_type END
        """

    static func names(_ db: Database, _ sql: String) throws -> [String] {
        let s = try db.prepare(sql)
        var out: [String] = []
        while try s.step() { out.append(s.string(0) ?? "") }
        return out
    }

    /// The id of a dimension value of an old row (a correlated lookup; the dimension tables are small).
    static func dim(_ table: String, _ expr: String) -> String { "(SELECT id FROM \(table) WHERE name = \(expr))" }

    static func copy(_ db: Database) throws {
        // The old columns in order (some named otherwise then) into the current table's first ones.
        let old = try names(db, "SELECT name FROM pragma_table_info('v3_sources')").count
        let into = try names(db, "SELECT name FROM pragma_table_info('sources')").prefix(old).map { "\"\($0)\"" }
        try db.exec(
            """
            INSERT OR REPLACE INTO meta(key, value) SELECT key, value FROM v3_meta;
            INSERT INTO sources(\(into.joined(separator: ", "))) SELECT * FROM v3_sources;
            INSERT INTO tokens(id, token, malformed, masked) SELECT id, token, malformed, masked FROM v3_tokens;
            """)
        // The dimensions, in order of first appearance by time (as the writer would have met them).
        let dims: [(String, [String])] = [
            ("topics", ["SELECT t, topic AS v FROM v3_sends", "SELECT t, topic AS v FROM v3_registers"]),
            ("envs", ["SELECT t, env AS v FROM v3_sends", "SELECT t, env AS v FROM v3_registers"]),
            ("push_types", ["SELECT t, \(SchemaMigration.pushType) AS v FROM v3_sends"]),
            ("reasons", ["SELECT t, reason AS v FROM v3_sends"]),
            ("app_versions", ["SELECT t, app_version AS v FROM v3_registers"]),
            ("os_versions", ["SELECT t, os_version AS v FROM v3_registers"]),
            (
                "devices",
                [
                    "SELECT t, device AS v FROM v3_registers", "SELECT t, device AS v FROM v3_settings",
                    "SELECT t, device AS v FROM v3_receipts", "SELECT t, device AS v FROM v3_unregisters",
                ]
            ),
            (
                "users",
                [
                    "SELECT t, user AS v FROM v3_registers", "SELECT t, user AS v FROM v3_settings",
                    "SELECT t, user AS v FROM v3_unregisters",
                ]
            ),
            (
                "labels",
                [
                    "SELECT t, auth AS v FROM v3_registers", "SELECT t, auth AS v FROM v3_settings",
                    "SELECT t, alert_setting AS v FROM v3_settings", "SELECT t, sound_setting AS v FROM v3_settings",
                    "SELECT t, badge_setting AS v FROM v3_settings", "SELECT t, lock_screen AS v FROM v3_settings",
                    "SELECT t, notification_center AS v FROM v3_settings", "SELECT t, receipt AS v FROM v3_receipts",
                    "SELECT t, result AS v FROM v3_receipts",
                ]
            ),
        ]
        for (table, selects) in dims {
            try db.exec(
                """
                INSERT OR IGNORE INTO \(table)(name)
                  SELECT v FROM (\(selects.joined(separator: " UNION ALL ")))
                  WHERE v IS NOT NULL GROUP BY v ORDER BY min(t), v;
                """)
        }
        try db.exec(
            """
            INSERT OR IGNORE INTO sends(id, time_ms, line_hash, source_id, line, kind, token_id, apns_id, env_id, topic_id,
                push_type_id, priority, collapse_id, expiration, payload_bytes, content_available, mutable_content,
                has_alert, has_sound, has_badge, aps_category, thread_id, interruption_level, relevance, custom_keys,
                status, reason_id, category_id, apns_ts, apns_unique_id, latency_ms, attempt, error)
              SELECT id, t, (h1 | h2) & ~(h1 & h2), src, line, kind, token_id, apns_key(apns_id), \(dim("envs", "env")), \(dim("topics", "topic")),
                \(dim("push_types", SchemaMigration.pushType)), priority, collapse_id, expiration, payload_bytes, content_available,
                mutable_content, has_alert, has_sound, has_badge, aps_category, thread_id, interruption_level, relevance,
                custom_keys, status, \(dim("reasons", "reason")), \(dim("categories", "category")), apns_ts, apns_unique_id,
                latency_ms, attempt, error
              FROM v3_sends ORDER BY id;
            INSERT OR IGNORE INTO registers(time_ms, line_hash, source_id, line, token_id, device_id, user_id, env_id,
                app_version_id, os_version_id, auth_id, topic_id)
              SELECT t, (h1 | h2) & ~(h1 & h2), src, line, token_id, \(dim("devices", "device")), \(dim("users", "user")), \(dim("envs", "env")),
                \(dim("app_versions", "app_version")), \(dim("os_versions", "os_version")), \(dim("labels", "auth")),
                \(dim("topics", "topic"))
              FROM v3_registers ORDER BY t;
            INSERT OR IGNORE INTO settings(time_ms, line_hash, source_id, line, device_id, user_id, auth_id,
                alert_setting_id, sound_setting_id, badge_setting_id, lock_screen_id, notification_center_id)
              SELECT t, (h1 | h2) & ~(h1 & h2), src, line, \(dim("devices", "device")), \(dim("users", "user")), \(dim("labels", "auth")),
                \(dim("labels", "alert_setting")), \(dim("labels", "sound_setting")), \(dim("labels", "badge_setting")),
                \(dim("labels", "lock_screen")), \(dim("labels", "notification_center"))
              FROM v3_settings ORDER BY t;
            INSERT OR IGNORE INTO receipts(time_ms, line_hash, source_id, line, apns_id, device_id, token_id, receipt_id, result_id)
              SELECT t, (h1 | h2) & ~(h1 & h2), src, line, apns_key(apns_id), \(dim("devices", "device")), token_id,
                \(dim("labels", "receipt")), \(dim("labels", "result"))
              FROM v3_receipts ORDER BY t;
            INSERT OR IGNORE INTO unregisters(time_ms, line_hash, source_id, line, token_id, device_id, user_id)
              SELECT t, (h1 | h2) & ~(h1 & h2), src, line, token_id, \(dim("devices", "device")), \(dim("users", "user"))
              FROM v3_unregisters ORDER BY t;
            INSERT OR IGNORE INTO rejects(id, source_id, line, reason, text, line_hash)
              SELECT id, src, line, reason, text, (h1 | h2) & ~(h1 & h2) FROM v3_rejects ORDER BY id;
            INSERT INTO apple_metrics(day, push_type, status, count, source_id)
              SELECT day, push_type, status, count, src FROM v3_apple_metrics;
            """)
    }
}
