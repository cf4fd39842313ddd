import Foundation
import XCTest
@testable import PushLogKit

/// Schema versions 1-5 to the current one: the in-place migrations keep every report's answer,
/// and a kill -9 at any point of them leaves a database the next run migrates.
final class MigrationTests: XCTestCase {
    /// The report runs of Tests/Fixtures/migration/runs.txt, against the JSON pushlog printed on
    /// the schema version 3 database (version3-demo.sql.gz: the demo, 80 devices over 2 weeks, and nine fixture
    /// logs, dumped with sqlite3 .dump by the last pushlog that wrote schema version 3, which also wrote NN.json;
    /// errors' bucket_responses and share, weekly's unit parameter, and env-mismatch's note on the
    /// share of responses that carry an env were added to them since, and a report without time
    /// buckets shows its unset `by` as null; every other figure as that pushlog wrote it).
    func testVersion3MigratedAnswersEveryReportAsBefore() throws {
        let tmp = TempDir()
        let db = tmp.file("version3.db")
        try loadDump(Fixtures.path("migration/version3-demo.sql.gz"), into: db)
        XCTAssertEqual(try Database(path: db, readOnly: true).scalarInt("PRAGMA user_version"), 3)
        let migrate = try Run.pushlog(["--db", db, "ingest", "--quiet", emptyDir(tmp)])
        XCTAssertEqual(migrate.status, 0, migrate.stderr)  // nothing to ingest: the database is migrated on opening
        XCTAssertEqual(try count("PRAGMA user_version", db: db), Schema.version)
        try assertReportsAsBefore(db)
        // Unchanged: the records and their identities.
        XCTAssertEqual(try count("SELECT count(*) FROM sends", db: db), 1471)
        XCTAssertEqual(
            try count("SELECT count(*) FROM sends WHERE typeof(apns_id) = 'blob'", db: db),
            try count("SELECT count(*) FROM sends_v WHERE length(apns_id) = 36 AND apns_id = lower(apns_id)", db: db))
    }

    func assertReportsAsBefore(_ db: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let runs = try String(contentsOfFile: Fixtures.path("migration/runs.txt"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        XCTAssertEqual(runs.count, 19)
        for (i, run) in runs.enumerated() {
            let expected = try String(contentsOfFile: Fixtures.path(String(format: "migration/%02d.json", i + 1)), encoding: .utf8)
            let r = try Run.pushlog(["--db", db, "report"] + run.split(separator: " ").map(String.init) + ["--format", "json"])
            XCTAssertEqual(r.status, 0, "\(run): \(r.stderr)", file: file, line: line)
            XCTAssertEqual(r.stdout, expected, "report \(run) differs after the migration", file: file, line: line)
        }
    }

    /// kill -9 at several moments of a migration, then a plain run: the database is the one an
    /// uninterrupted migration gives (every report's JSON equal).
    func testKillNineDuringMigrationThenRerun() throws {
        let tmp = TempDir()
        // A version 3 database large enough to be killed mid-way: the demo ingested by this
        // pushlog, written back in the old layout through the *_v views.
        _ = try DemoGenerator(smallDemo(devices: 400)).write(to: tmp.path + "/logs")
        let current = tmp.file("new.db")
        XCTAssertEqual(try Run.pushlog(["--db", current, "ingest", "--quiet", tmp.path + "/logs"]).status, 0)
        let old = tmp.file("old.db")
        try writeVersion3(from: current, to: old)
        let reference = tmp.file("ref.db")
        try FileManager.default.copyItem(atPath: old, toPath: reference)
        _ = try Run.pushlog(["--db", reference, "ingest", "--quiet", emptyDir(tmp)])
        XCTAssertEqual(try count("PRAGMA user_version", db: reference), Schema.version)
        let expected = try reports(reference)
        XCTAssertEqual(expected, try reports(current), "the round trip through version 3 changes nothing")
        for (i, delay) in [0.02, 0.08, 0.2, 0.4].enumerated() {
            let db = tmp.file("k\(i).db")
            try FileManager.default.copyItem(atPath: old, toPath: db)
            let p = Process()
            p.executableURL = URL(fileURLWithPath: Fixtures.binary)
            p.arguments = ["--db", db, "ingest", "--quiet", emptyDir(tmp)]
            p.standardError = FileHandle.nullDevice
            try p.run()
            Thread.sleep(forTimeInterval: delay)
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            _ = try Run.pushlog(["--db", db, "ingest", "--quiet", emptyDir(tmp)])
            XCTAssertEqual(try count("PRAGMA user_version", db: db), Schema.version, "after kill -9 at \(delay)s")
            XCTAssertEqual(try reports(db), expected, "after kill -9 at \(delay)s")
        }
    }

    /// Databases of versions 1 and 2 (before the background, hourly and hygiene tables) migrate
    /// the same way: the derived facts come out as a fresh ingest's.
    func testVersions1And2MigrateToo() throws {
        let tmp = TempDir()
        let fresh = tmp.file("fresh.db")
        _ = try ingest([Fixtures.path("reports.ndjson"), Fixtures.path("hygiene.ndjson")], db: fresh)
        let expected = try reports(fresh)
        for (version, drop) in [
            (1, "DROP TABLE bg_pushes; DROP TABLE resp_hourly; DROP TABLE hygiene_hourly;"),
            (2, "DROP TABLE hygiene_hourly;"),
        ] {
            let db = tmp.file("v\(version).db")
            try writeVersion3(from: fresh, to: db)
            try Database(path: db, readOnly: false).exec("\(drop) PRAGMA user_version = \(version)")
            XCTAssertThrowsError(try Store.openForReading(path: db))  // reports ask for an ingest first
            XCTAssertEqual(try Run.pushlog(["--db", db, "ingest", "--quiet", emptyDir(tmp)]).status, 0)
            XCTAssertEqual(try reports(db), expected, "version \(version)")
        }
    }

    /// Version 4 kept registers and receipts in time order with covering indexes by
    /// token and apns-id; version 5 keys the tables so. The migration keeps every report's answer
    /// and every row, and drops the two indexes.
    func testVersion4MigratesToTablesKeyedByTokenAndApnsID() throws {
        let tmp = TempDir()
        let fresh = tmp.file("fresh.db")
        _ = try ingest([Fixtures.path("reports.ndjson"), Fixtures.path("hygiene.ndjson")], db: fresh)
        let expected = try reports(fresh)
        let db = tmp.file("v4.db")
        try FileManager.default.copyItem(atPath: fresh, toPath: db)
        let conn = try Database(path: db, readOnly: false)
        // The two tables and indexes as a version-4 pushlog created them.
        try conn.exec(
            """
            DROP VIEW registers_v; DROP VIEW receipts_v;
            ALTER TABLE registers RENAME TO r5; ALTER TABLE receipts RENAME TO c5;
            CREATE TABLE registers(
                time_ms INTEGER NOT NULL, line_hash INTEGER NOT NULL, source_id INTEGER, line INTEGER,
                token_id INTEGER NOT NULL, device_id INTEGER, user_id INTEGER, env_id INTEGER, app_version_id INTEGER,
                os_version_id INTEGER, auth_id INTEGER, topic_id INTEGER,
                PRIMARY KEY(time_ms, line_hash)
            ) WITHOUT ROWID;
            CREATE TABLE receipts(
                time_ms INTEGER NOT NULL, line_hash INTEGER NOT NULL, source_id INTEGER, line INTEGER,
                apns_id BLOB NOT NULL, device_id INTEGER, token_id INTEGER, receipt_id INTEGER, result_id INTEGER,
                PRIMARY KEY(time_ms, line_hash)
            ) WITHOUT ROWID;
            INSERT INTO registers SELECT * FROM r5; INSERT INTO receipts SELECT * FROM c5;
            DROP TABLE r5; DROP TABLE c5;
            CREATE INDEX registers_token ON registers(token_id, time_ms, env_id, app_version_id, device_id, user_id);
            CREATE INDEX registers_device ON registers(device_id, time_ms, token_id, auth_id, user_id);
            CREATE INDEX receipts_apns ON receipts(apns_id, receipt_id, time_ms);
            DROP INDEX sends_apns; CREATE INDEX sends_apns ON sends(apns_id);
            \(MigrationTests.version5Changes)
            -- A user's own view and index on a rebuilt table survive the migration.
            CREATE VIEW my_registrations AS SELECT token_id, time_ms FROM registers;
            CREATE INDEX my_index ON registers(user_id);
            PRAGMA user_version = 4;
            """)
        let records = try conn.scalarInt("SELECT (SELECT count(*) FROM registers) + (SELECT count(*) FROM receipts)") ?? 0
        XCTAssertGreaterThan(try conn.scalarInt("SELECT count(*) FROM receipts") ?? 0, 0)
        let r = try Run.pushlog(["--db", db, "ingest", "--quiet", emptyDir(tmp)])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try count("PRAGMA user_version", db: db), Schema.version)
        XCTAssertEqual(try reports(db), expected)
        XCTAssertEqual(try count("SELECT (SELECT count(*) FROM registers) + (SELECT count(*) FROM receipts)", db: db), records)
        XCTAssertEqual(
            try rows(
                "SELECT name FROM sqlite_master WHERE name IN ('registers_token', 'receipts_apns', 'registers_device') ORDER BY 1", db),
            [[.text("registers_device")]])
        // The keys: the first column of each table's primary key, and the views work again.
        XCTAssertEqual(
            try rows("SELECT name FROM pragma_index_info('sqlite_autoindex_registers_1') WHERE seqno = 0", db), [[.text("token_id")]])
        XCTAssertEqual(
            try rows("SELECT name FROM pragma_index_info('sqlite_autoindex_receipts_1') WHERE seqno = 0", db), [[.text("apns_id")]])
        XCTAssertEqual(try count("SELECT (SELECT count(*) FROM receipts_v) + (SELECT count(*) FROM registers_v)", db: db), records)
        XCTAssertEqual(try count("SELECT count(*) FROM my_registrations", db: db), try count("SELECT count(*) FROM registers", db: db))
        XCTAssertEqual(try count("SELECT count(*) FROM sqlite_master WHERE name = 'my_index'", db: db), 1)
        XCTAssertEqual(
            try rows("SELECT sql FROM sqlite_master WHERE name = 'sends_apns'", db),
            [[.text("CREATE INDEX sends_apns ON sends(substr(apns_id, 1, 8))")]])
        // The planner's statistics describe the rebuilt tables.
        XCTAssertGreaterThan(try count("SELECT count(*) FROM sqlite_stat1 WHERE tbl IN ('registers', 'receipts')", db: db), 0)
    }

    /// What version 6 added, undone: its derived tables and the covering sends_errors.
    static let version5Changes = """
        DROP TABLE retry_links; DROP TABLE backoff_retries; DROP TABLE background_hourly;
        DROP VIEW background_pushes; DROP INDEX sends_background;
        CREATE TABLE background_pushes(
            hour INTEGER NOT NULL, token_id INTEGER NOT NULL, time_ms INTEGER NOT NULL, line_hash INTEGER NOT NULL,
            status INTEGER NOT NULL, priority INTEGER, with_alert INTEGER NOT NULL, topic_id INTEGER, env_id INTEGER, receipt_ms INTEGER,
            PRIMARY KEY(hour, token_id, time_ms, line_hash)
        ) WITHOUT ROWID;
        DROP INDEX sends_errors; CREATE INDEX sends_errors ON sends(time_ms) WHERE status <> 200;
        """

    func testVersion5MigratesWithRetryLinksFoundFromTheRecords() throws {
        let tmp = TempDir()
        let (fresh, db, expected) = try olderDatabase(tmp, version: 5, changes: MigrationTests.version5Changes)
        let links = try rows("SELECT error_id, retry_id FROM retry_links ORDER BY 1, 2", fresh)
        XCTAssertFalse(links.isEmpty, "the fixtures retry some non-retryable errors")
        try migrate(db, tmp)
        XCTAssertEqual(try rows("SELECT error_id, retry_id FROM retry_links ORDER BY 1, 2", db), links)
        XCTAssertEqual(try reports(db), expected)
        XCTAssertEqual(
            try rows("SELECT sql FROM sqlite_master WHERE name = 'sends_errors'", db),
            try rows("SELECT sql FROM sqlite_master WHERE name = 'sends_errors'", fresh))
    }

    /// Version 6 had no transport_failures and attempts views: the step adds them and changes
    /// nothing else. Until an ingest migrates it, a reader gives every report's answer from
    /// views of its own and leaves the file as it is.
    func testVersion6MigratesWithTheAttemptViews() throws {
        let tmp = TempDir()
        let (fresh, db, expected) = try olderDatabase(tmp, version: 6, changes: "DROP VIEW transport_failures; DROP VIEW attempts;")
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        XCTAssertEqual(try reports(db), expected)
        XCTAssertEqual(try Run.pushlog(["--db", db, "report", "weekly", "--format", "json"]).status, 0)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: db)), before, "a reader changed the file")
        XCTAssertEqual(try count("PRAGMA user_version", db: db), 6)
        try migrate(db, tmp, readerRefuses: false)
        XCTAssertEqual(try reports(db), expected)
        let views = "SELECT name, sql FROM sqlite_master WHERE type = 'view' ORDER BY name"
        XCTAssertEqual(try rows(views, db), try rows(views, fresh))
    }

    /// Version 8's sources had no count of ambiguous records: the step adds the column. Until an
    /// ingest migrates it, a reader lists the sources with a count of 0 and every report as
    /// before, and leaves the file as it is.
    func testVersion8MigratesWithTheAmbiguousCount() throws {
        let tmp = TempDir()
        let (_, db, expected) = try olderDatabase(tmp, version: 8, changes: "ALTER TABLE sources DROP COLUMN ambiguous;")
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        XCTAssertEqual(try reports(db), expected)
        let listed = try Run.pushlog(["--db", db, "sources", "--format", "csv"])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertTrue(listed.stdout.hasPrefix("path,format,fingerprint,records,") && listed.stdout.contains(",duplicates,ambiguous,"))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: db)), before, "a reader changed the file")
        try migrate(db, tmp, readerRefuses: false)
        XCTAssertEqual(try count("SELECT count(*) FROM pragma_table_info('sources') WHERE name = 'ambiguous'", db: db), 1)
        XCTAssertEqual(try Run.pushlog(["--db", db, "sources", "--format", "csv"]).stdout, listed.stdout)
    }

    /// Version 9 had no apple_metrics_v (the relation reconcile, written once for both engines,
    /// reads): the step adds the view. Until an ingest migrates it, a reader answers reconcile
    /// from a view of its own and leaves the file as it is.
    func testVersion9MigratesWithTheAppleMetricsView() throws {
        let tmp = TempDir()
        let apple = "INSERT INTO apple_metrics(day, push_type, status, count) VALUES ('2026-11-02', 'alert', 'Received', 3);"
        let (fresh, db, expected) = try olderDatabase(tmp, version: 9, changes: apple + " DROP VIEW apple_metrics_v;")
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        XCTAssertEqual(try reports(db), expected)
        let reconcile = try Run.pushlog(["--db", db, "report", "reconcile", "--format", "json"])
        XCTAssertEqual(reconcile.status, 0, reconcile.stderr)
        XCTAssertTrue(reconcile.stdout.contains(#""day":"2026-11-02","push_type":"alert","our_responses""#), reconcile.stdout)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: db)), before, "a reader changed the file")
        try migrate(db, tmp, readerRefuses: false)
        let views = "SELECT name, sql FROM sqlite_master WHERE type = 'view' ORDER BY name"
        XCTAssertEqual(try rows(views, db), try rows(views, fresh))
        XCTAssertEqual(try Run.pushlog(["--db", db, "report", "reconcile", "--format", "json"]).stdout, reconcile.stdout)
    }

    /// A fresh database of the report fixtures, a copy of it taken back to `version` by `changes`,
    /// and the fresh one's reports.
    func olderDatabase(_ tmp: TempDir, version: Int, changes: String) throws -> (fresh: String, db: String, expected: [String]) {
        let fresh = tmp.file("fresh.db")
        _ = try ingest([Fixtures.path("reports.ndjson"), Fixtures.path("hygiene.ndjson")], db: fresh)
        let db = tmp.file("v\(version).db")
        try FileManager.default.copyItem(atPath: fresh, toPath: db)
        try Database(path: db, readOnly: false).exec("\(changes) PRAGMA user_version = \(version);")
        return (fresh, db, try reports(fresh))
    }

    /// A reader refuses the older database (unless it only lacks views) and says how to migrate
    /// it; an ingest of nothing does.
    func migrate(
        _ db: String, _ tmp: TempDir, readerRefuses: Bool = true, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        if readerRefuses {
            let r = try Run.pushlog(["--db", db, "report", "errors"])
            XCTAssertEqual(r.status, 1, file: file, line: line)
            XCTAssertTrue(r.stderr.contains("ingest"), r.stderr, file: file, line: line)
        }
        let r = try Run.pushlog(["--db", db, "ingest", "--quiet", emptyDir(tmp)])
        XCTAssertEqual(r.status, 0, r.stderr, file: file, line: line)
        XCTAssertEqual(try count("PRAGMA user_version", db: db), Schema.version, file: file, line: line)
    }

    /// Every version before the current one has exactly one step, and each step moves forward.
    func testEveryOlderVersionHasOneStepForward() {
        for v in 0..<Schema.version {
            let steps = SchemaMigration.all.filter { $0.from.contains(v) }
            XCTAssertEqual(steps.count, 1, "version \(v)")
            XCTAssertGreaterThan(steps.first?.to ?? 0, v, "version \(v)")
        }
        XCTAssertTrue(SchemaMigration.all.allSatisfy { $0.to <= Schema.version && !$0.from.contains(Schema.version) })
    }

    func emptyDir(_ tmp: TempDir) -> String {
        let d = tmp.file("empty")
        try? FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }

    func reports(_ db: String) throws -> [String] {
        try ["gone", "churn", "env-mismatch", "errors", "silent", "opt-out", "hygiene"].map {
            try Run.pushlog(["--db", db, "report", $0, "--format", "json"]).stdout
        }
    }

    /// Loads a gzipped `sqlite3 .dump` into a new database file.
    func loadDump(_ gz: String, into db: String) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "gzip -dc \"$0\"", gz]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let sql = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let conn = try Database(path: db, readOnly: false)
        try conn.exec(String(decoding: sql, as: UTF8.self))
    }

    /// The tables of schema version 3 ( as the pushlog of that version created them) filled from a
    /// current database's views; the derived tables stay empty (the migration rebuilds them).
    func writeVersion3(from current: String, to path: String) throws {
        let conn = try Database(path: path, readOnly: false)
        try conn.exec(MigrationTests.version3Tables)
        try conn.exec("ATTACH DATABASE '\(current)' AS n")
        try Functions.register(conn)
        // The columns version 3 had, in order (the current table has more at its end).
        let had = Int(try conn.scalarInt("SELECT count(*) FROM main.pragma_table_info('sources')") ?? 0)
        let names = try conn.prepare("SELECT name FROM pragma_table_info('sources', 'n')")
        var columns: [String] = []
        while try names.step() { columns.append(names.string(0) ?? "") }
        columns = Array(columns.prefix(had))
        try conn.exec(
            """
            INSERT INTO sources SELECT \(columns.joined(separator: ", ")) FROM n.sources;
            INSERT INTO tokens SELECT * FROM n.tokens;
            INSERT INTO sends SELECT id, time_ms, line_hash, 0, source_id, line, kind, token_id, apns_id, env, topic, push_type,
              priority, collapse_id, expiration, payload_bytes, content_available, mutable_content, has_alert, has_sound,
              has_badge, aps_category, thread_id, interruption_level, relevance, custom_keys, status, reason, category, apns_ts,
              apns_unique_id, latency_ms, attempt, error FROM n.sends_v;
            INSERT INTO registers SELECT NULL, time_ms, line_hash, 0, source_id, line, token_id, device, user, env, app_version,
              os_version, auth, topic FROM n.registers_v;
            INSERT INTO settings SELECT NULL, time_ms, line_hash, 0, source_id, line, device, user, auth, alert_setting,
              sound_setting, badge_setting, lock_screen, notification_center FROM n.settings_v;
            INSERT INTO receipts SELECT NULL, time_ms, line_hash, 0, source_id, line, apns_id, device, token_id, receipt, result
              FROM n.receipts_v;
            INSERT INTO unregisters SELECT NULL, time_ms, line_hash, 0, source_id, line, token_id, device, user FROM n.unregisters_v;
            UPDATE meta SET value = 1 WHERE key = 'derived_stale';
            PRAGMA user_version = 3;
            """)
        try conn.exec("DETACH DATABASE n")
    }

    static let version3Tables = """
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
        CREATE TABLE token_facts(
            token_id INTEGER PRIMARY KEY,
            first_reg INTEGER, last_reg INTEGER,           -- first and latest registration time
            reg_env TEXT, reg_app_version TEXT,            -- env and app version of the latest registration
            reg_device TEXT, reg_user TEXT,
            first_410 INTEGER, first_410_ts INTEGER,       -- first 410 response time and its APNs timestamp
            malformed INTEGER NOT NULL DEFAULT 0           -- copied from tokens, to save reports a join
        );
        CREATE TABLE token_runs(
            device TEXT NOT NULL, token_id INTEGER NOT NULL, start INTEGER NOT NULL, last INTEGER NOT NULL,
            superseded_at INTEGER
        );
        CREATE INDEX token_runs_token ON token_runs(token_id, start);
        CREATE TABLE token_stale(token_id INTEGER NOT NULL, from_t INTEGER NOT NULL, to_t INTEGER NOT NULL);
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

        CREATE TABLE bg_pushes(
            hour INTEGER NOT NULL,               -- t / 3600000
            token_id INTEGER NOT NULL,           -- 0 when the record names no token
            t INTEGER NOT NULL, h1 INTEGER NOT NULL, h2 INTEGER NOT NULL,
            status INTEGER NOT NULL, priority INTEGER, with_alert INTEGER NOT NULL,
            topic TEXT, env TEXT, apns_id TEXT, rt INTEGER,
            PRIMARY KEY(hour, token_id, t, h1, h2)
        ) WITHOUT ROWID;
        CREATE TABLE resp_hourly(
            hour INTEGER NOT NULL,               -- floor(t / 3600000)
            topic TEXT NOT NULL, env TEXT NOT NULL,
            responses INTEGER NOT NULL, gone INTEGER NOT NULL,
            PRIMARY KEY(hour, topic, env)
        ) WITHOUT ROWID;

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
}
