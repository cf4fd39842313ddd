import Foundation
import XCTest
@testable import PushLogKit

/// The store's own promises (docs/store.md): apns-ids stored as 16 bytes join whatever the
/// case they were logged in, the views read like the functions, and old names get a pointer.
final class StoreTests: XCTestCase {
    static let tokenA = token(0xA1), tokenB = token(0xB2)

    /// A request logged with an upper-case apns-id (as Swift's `UUID().uuidString` writes it) and its
    /// response with the same id in lower case; a send and its receipt likewise, the other way round.
    static let mixedCase = """
        {"time":"2026-11-02T08:00:00Z","event":"request","token":"\(tokenA)","apns_id":"22222222-3333-4444-8555-66666666AAAA","env":"production","topic":"com.example.app","push_type":"alert"}
        {"time":"2026-11-02T08:00:00.120Z","event":"response","apns_id":"22222222-3333-4444-8555-66666666aaaa","status":410,"reason":"Unregistered","apns_timestamp":1793606400000}
        {"time":"2026-11-02T08:01:00Z","event":"send","token":"\(tokenB)","apns_id":"abcdef01-2345-4678-9abc-def012345678","status":200,"env":"production","topic":"com.example.app","push_type":"background","priority":5}
        {"time":"2026-11-02T08:01:05Z","event":"receipt","apns_id":"ABCDEF01-2345-4678-9ABC-DEF012345678","device":"dev-b","receipt":"background","result":"newData"}
        {"time":"2026-11-02T08:02:00Z","event":"send","token":"\(tokenB)","apns_id":"not-a-uuid-7","status":200,"env":"production","topic":"com.example.app"}

        """

    func testApnsIDsJoinWhateverTheirCaseAndReadBackAsText() throws {
        let tmp = TempDir(), db = tmp.file("s.db")
        let log = tmp.write("mixed.ndjson", Self.mixedCase)
        XCTAssertEqual(try Run.pushlog(["--db", db, "ingest", "--quiet", log]).status, 0)
        // The response took its request's token, so the 410 counts against that token.
        XCTAssertEqual(
            try rows("SELECT kind, token, status, apns_id FROM sends_v ORDER BY time_ms", db),
            [
                [.int(1), .text(Self.tokenA), .null, .text("22222222-3333-4444-8555-66666666aaaa")],
                [.int(2), .text(Self.tokenA), .int(410), .text("22222222-3333-4444-8555-66666666aaaa")],
                [.int(0), .text(Self.tokenB), .int(200), .text("abcdef01-2345-4678-9abc-def012345678")],
                [.int(0), .text(Self.tokenB), .int(200), .text("not-a-uuid-7")],
            ])
        XCTAssertEqual(try count("SELECT count(*) FROM token_facts WHERE first_410 IS NOT NULL", db: db), 1)
        // The receipt answers the send: the background push has its receipt time.
        XCTAssertEqual(try count("SELECT receipt_ms - time_ms FROM background_pushes", db: db), 5000)
        // Stored as 16 bytes; query shows the UUID; apns_key() compares, either case.
        XCTAssertEqual(try count("SELECT length(apns_id) FROM receipts", db: db), 16)
        let q = try Run.pushlog([
            "--db", db, "query", "--format", "csv",
            "SELECT apns_id, status FROM sends WHERE apns_id = apns_key('ABCDEF01-2345-4678-9ABC-DEF012345678')",
        ])
        XCTAssertEqual(q.stdout, "apns_id,status\nabcdef01-2345-4678-9abc-def012345678,200\n", q.stderr)
        // trace by either spelling (or a prefix of it) shows the send and its receipt.
        for key in ["ABCDEF01-2345-4678-9ABC-DEF012345678", "abcdef01-2345-4678-9abc-def012345678", "ABCDEF01"] {
            let t = try Run.pushlog(["--db", db, "trace", key, "--format", "csv"])
            XCTAssertEqual(t.status, 0, t.stderr)
            let own = t.stdout.components(separatedBy: "\n\n# token_context")[0]
            XCTAssertEqual(own.split(separator: "\n").count, 4, "\(key): title, header, send, receipt\n\(t.stdout)")
            XCTAssertTrue(own.contains(",receipt,"), t.stdout)
        }
        let other = try Run.pushlog(["--db", db, "trace", "not-a-uuid-7", "--format", "csv"]).stdout
        XCTAssertEqual(other.components(separatedBy: "\n\n# token_context")[0].split(separator: "\n").count, 3, other)
    }

    /// The views' `time` is what rfc3339() writes (milliseconds only when there are some), in
    /// plain SQL; an old column name gets a pointer to the schema instead of a bare SQLite error.
    func testViewsReadLikeTheFunctionsAndOldNamesGetAHint() throws {
        let tmp = TempDir(), db = tmp.file("s.db")
        XCTAssertEqual(try Run.pushlog(["--db", db, "ingest", "--quiet", tmp.write("m.ndjson", Self.mixedCase)]).status, 0)
        XCTAssertEqual(try count("SELECT count(*) FROM sends_v WHERE time <> rfc3339(time_ms)", db: db), 0)
        XCTAssertEqual(
            try rows("SELECT time FROM sends_v ORDER BY time_ms LIMIT 2", db),
            [[.text("2026-11-02T08:00:00Z")], [.text("2026-11-02T08:00:00.120Z")]])
        let old = try Run.pushlog(["--db", db, "query", "SELECT t, src FROM sends"])
        XCTAssertEqual(old.status, 1)
        XCTAssertTrue(old.stderr.contains("no such column: t") && old.stderr.contains("sends_v"), old.stderr)
    }

    /// Some SQL names a seeded id as a literal, so a partial index applies (the planner cannot see
    /// through a subquery): errors and weekly read transport failures as category 10.
    func testFixedIdsTheSQLNames() throws {
        let tmp = TempDir()
        let db = try Store.openForWriting(path: tmp.file("f.db"))
        XCTAssertEqual(try db.scalarInt("SELECT id FROM categories WHERE name = 'transport'"), 10)
        XCTAssertEqual(try db.scalarInt("SELECT id FROM push_types WHERE name = 'alert'"), 1)
        XCTAssertEqual(try db.scalarInt("SELECT id FROM push_types WHERE name = 'background'"), 2)
        XCTAssertEqual(try db.scalarInt("SELECT id FROM labels WHERE name = 'authorized'"), 1)
        XCTAssertEqual(try db.scalarInt("SELECT id FROM labels WHERE name = 'denied'"), 2)
        XCTAssertEqual(try db.scalarInt("SELECT id FROM labels WHERE name = 'background'"), 9)
        let plan = try db.prepare("EXPLAIN QUERY PLAN SELECT count(*) FROM sends WHERE category_id = 10 AND time_ms >= 0 AND time_ms < 1")
        var steps: [String] = []
        while try plan.step() { steps.append(plan.string(3) ?? "") }
        XCTAssertTrue(steps.contains { $0.contains("sends_transport") }, "\(steps)")
        // An apns-id lookup in the form the code writes (Schema.apnsMatch) reads the 8-byte prefix index.
        let apns = try db.prepare(
            "EXPLAIN QUERY PLAN SELECT * FROM sends WHERE \(Schema.apnsMatch("apns_id", "apns_key('6d5e0000-0000-4000-8000-000000000001')"))"
        )
        var apnsSteps: [String] = []
        while try apns.step() { apnsSteps.append(apns.string(3) ?? "") }
        XCTAssertTrue(apnsSteps.contains { $0.contains("sends_apns") }, "\(apnsSteps)")
        // An incremental run's receipts find their pushes through sends_apns, never by a scan of sends.
        try db.exec(
            """
            CREATE TEMP TABLE IF NOT EXISTS touched_receipts(apns_id PRIMARY KEY);
            CREATE TEMP TABLE IF NOT EXISTS touched_hours(hour INTEGER PRIMARY KEY);
            """)
        let update = try db.prepare("EXPLAIN QUERY PLAN " + BackgroundHourly.receiptHours(olderThan: 1_000_000))
        var updateSteps: [String] = []
        while try update.step() { updateSteps.append(update.string(3) ?? "") }
        XCTAssertTrue(updateSteps.contains { $0.contains("SEARCH s USING INDEX sends_apns") }, "\(updateSteps)")
        XCTAssertFalse(updateSteps.contains { $0.hasPrefix("SCAN s") }, "\(updateSteps)")
        // Reports and the rebuild read background pushes through sends_background, not a scan of sends.
        let bg = try db.prepare("EXPLAIN QUERY PLAN SELECT count(*) FROM background_pushes WHERE time_ms >= 0 AND time_ms < 3600000")
        var bgSteps: [String] = []
        while try bg.step() { bgSteps.append(bg.string(3) ?? "") }
        XCTAssertTrue(bgSteps.contains { $0.contains("sends_background") }, "\(bgSteps)")
    }

    /// A push type logged in another case is the APNs push type: a `BACKGROUND` push counts in
    /// silent, and every spelling is one value.
    func testPushTypesAreReadInLowerCase() throws {
        let tmp = TempDir(), db = tmp.file("p.db")
        let log = tmp.write(
            "p.ndjson",
            """
            {"time":"2026-11-02T08:00:00Z","event":"send","token":"\(Self.tokenA)","status":200,"push_type":"BACKGROUND","priority":5}
            {"time":"2026-11-02T08:01:00Z","event":"send","token":"\(Self.tokenA)","status":200,"push_type":"Alert"}
            {"time":"2026-11-02T08:02:00Z","event":"send","token":"\(Self.tokenA)","status":200,"push_type":"alert"}
            {"time":"2026-11-02T08:03:00Z","event":"send","token":"\(Self.tokenA)","status":200,"push_type":"Custom-Type"}

            """)
        XCTAssertEqual(try Run.pushlog(["--db", db, "ingest", "--quiet", log]).status, 0)
        XCTAssertEqual(
            try rows("SELECT push_type, count(*) FROM sends_v GROUP BY 1 ORDER BY 1", db),
            [[.text("Custom-Type"), .int(1)], [.text("alert"), .int(2)], [.text("background"), .int(1)]])
        let silent = try Run.pushlog(["--db", db, "report", "silent", "--format", "csv"])
        XCTAssertTrue(silent.stdout.contains("too_many_requests\n1,1,"), "one background push, accepted: \(silent.stdout)")
    }

    /// A cached id is taken only when the bytes match, not on a hash hit alone: a string crafted
    /// to collide with another's hash gets its own id.
    func testADimensionHashHitWithOtherBytesIsNotTaken() throws {
        let tmp = TempDir()
        let db = try Store.openForWriting(path: tmp.file("d.db"))
        let topics = try Dimension(db, table: "topics")
        func id(_ s: String) throws -> Int64? {
            var t = s
            return try t.withUTF8 { try topics.id($0) }
        }
        let shop = try XCTUnwrap(id("com.example.shop"))
        XCTAssertEqual(try id("com.example.shop"), shop)
        // Plant "com.example.shop"'s id under the hash of another topic, as a collision would.
        var other = "com.evil.app"
        let h = other.withUTF8 { LineHash.hash($0) }
        topics.cached[TokenCache.Key(a: h.0, b: h.1)] = (shop, Array("com.example.shop".utf8))
        let evil = try XCTUnwrap(id("com.evil.app"))
        XCTAssertNotEqual(evil, shop)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM topics"), 2)
    }

    /// An older database says how to migrate it, and the migration says what it does.
    func testAnOlderDatabaseIsMigratedOutLoud() throws {
        let tmp = TempDir(), db = tmp.file("old.db")
        do {
            let c = try Database(path: db, readOnly: false)
            try c.exec(MigrationTests.version3Tables + "PRAGMA user_version = 3;")
        }
        let refused = try Run.pushlog(["--db", db, "report", "gone"])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(
            refused.stderr.contains("schema version 3, expected \(Schema.version)") && refused.stderr.contains("ingest DIR"),
            refused.stderr)
        let empty = tmp.file("empty")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let m = try Run.pushlog(["--db", db, "ingest", empty])
        XCTAssertEqual(m.status, 0, m.stderr)
        XCTAssertTrue(
            m.stderr.contains("has schema version 3; migrating it to \(Schema.version)") && m.stderr.contains("migrated in"), m.stderr)
        XCTAssertEqual(try Run.pushlog(["--db", db, "report", "gone"]).status, 0)
        XCTAssertFalse(try Run.pushlog(["--db", db, "ingest", empty]).stderr.contains("migrat"), "once")
    }
}
