import Foundation
import XCTest
@testable import PushLogKit

/// Each report's figures on Tests/Fixtures/reports.ndjson, derived by hand in the comments.
/// Tokens: A (dev1, then rotated to B), C (dev2, 410 then re-registered), D (dev3, sandbox
/// build), M (dev4, malformed), E (dev5, uninstalled), F (dev6, user u1's second device).
final class ReportTests: XCTestCase {
    static var dbPath: String { IngestedFixtures.reports }

    /// Ingests before the first test.
    override class func setUp() { _ = dbPath }

    func summary(_ report: String, _ p: ReportParams = ReportParams(), section: String = "summary") throws -> [String: SQLValue] {
        let db = try Store.openForReading(path: ReportTests.dbPath)
        let doc = try ReportRunner(db: db).run(name: report, params: p)
        let t = try XCTUnwrap(doc.section(section), "no section \(section)")
        let row = try XCTUnwrap(t.rows.first)
        return Dictionary(uniqueKeysWithValues: zip(t.columns, row))
    }

    func table(_ report: String, _ section: String, _ p: ReportParams = ReportParams()) throws -> ResultTable {
        let db = try Store.openForReading(path: ReportTests.dbPath)
        return try XCTUnwrap(try ReportRunner(db: db).run(name: report, params: p).section(section))
    }

    func testGone() throws {
        let s = try summary("gone")
        // 17 responses: id-1, id-2, id-3 and its retry, id-5..id-17 (receipts and registrations are not responses).
        XCTAssertEqual(s["responses"], .int(17))
        // 410s: id-3 twice (A), id-5 (C), id-17 (E).
        XCTAssertEqual(s["gone"], .int(4))
        XCTAssertEqual(s["gone_rate"], .double(0.235294))  // 4/17
        XCTAssertEqual(s["tokens_gone"], .int(3))  // A, C, E
        // A's retry at 12:00 follows A's first 410 (11:00) with no registration of A since its
        // timestamp (10:00): counted. C's send on Tuesday follows its 410, but C registered again
        // on Tuesday 09:00, after the 410's timestamp (Mon 11:30): not counted.
        XCTAssertEqual(s["sends_after_gone"], .int(1))
        // Buckets by day: Monday has 15 responses with 3 410s; Wednesday one response, a 410.
        let b = try table("gone", "by_bucket", ReportParams(by: "day"))
        XCTAssertEqual(b.rows.prefix(3).map { $0[0] }, [.text("2026-11-02"), .text("2026-11-03"), .text("2026-11-04")])
        XCTAssertEqual(b.rows[0][1...4], [.int(15), .int(3), .double(0.2), .int(2)])
        // Days after the last response, up to the data's last record, are there with zeros.
        XCTAssertTrue(b.rows.dropFirst(3).allSatisfy { $0[1] == .int(0) && $0[3] == .null }, "\(b.rows)")
        // tokens_gone adds up across buckets to the summary's figure (A and C on Monday, E on Wednesday).
        XCTAssertEqual(b.rows.map { $0[4].asDouble ?? 0 }.reduce(0, +), 3)
        // The range selects responses by time; history before it is context (A's first 410 is on Monday).
        let tue = try summary("gone", ReportParams(since: TimeArgument.parse("2026-11-03")!, until: TimeArgument.parse("2026-11-05")!))
        XCTAssertEqual(tue["responses"], .int(2))
        XCTAssertEqual(tue["tokens_gone"], .int(1))  // only E's first 410 is in range
    }

    func testChurn() throws {
        let t = try table("churn", "by_bucket")
        XCTAssertEqual(t.rows.count, 1)
        let r = Dictionary(uniqueKeysWithValues: zip(t.columns, t.rows[0]))
        XCTAssertEqual(r["bucket"], .text("2026-W45"))
        XCTAssertEqual(r["active_devices"], .int(6))  // dev1..dev6 registered that week
        XCTAssertEqual(r["new_tokens"], .int(7))  // A B C D E F M
        XCTAssertEqual(r["rotations"], .int(1))  // dev1: A -> B (dev2's C -> C is not one)
        XCTAssertEqual(r["devices_rotated"], .int(1))
        XCTAssertEqual(r["rotation_rate"], .double(0.166667))  // 1/6
        XCTAssertEqual(r["tokens_retired"], .int(3))  // first 410s of A, C, E
        // dev1 registered B at 10:00 after A's last registration (08:00): the sends to A at
        // 10:30, 11:00 and 12:00 went to a superseded token. The 08:30 send did not.
        XCTAssertEqual(r["superseded_sends"], .int(3))
    }

    func testEnvMismatch() throws {
        let s = try summary("env-mismatch")
        XCTAssertEqual(s["responses"], .int(17))
        XCTAssertEqual(s["mismatched_sends"], .int(1))  // id-7: D registered sandbox, sent production
        XCTAssertEqual(s["bad_device_token"], .int(2))  // id-7, id-8
        XCTAssertEqual(s["bad_device_token_explained"], .int(1))  // id-7
        XCTAssertEqual(s["malformed_token_sends"], .int(1))  // id-8 to M
        XCTAssertEqual(s["env_key_errors"], .int(1))  // id-16
        let pair = try table("env-mismatch", "by_pair")
        XCTAssertEqual(pair.rows, [[.text("sandbox"), .text("production"), .int(1), .int(1)]])
        let v = try table("env-mismatch", "by_app_version")
        let byVersion = Dictionary(uniqueKeysWithValues: v.rows.map { (CellFormat.plain($0[0]), Array($0[1...])) })
        // A (4) and E (1) were last registered with 5.0; B (8) and C (2) with 5.1.
        XCTAssertEqual(byVersion["5.0"], [.int(5), .int(0), .int(0), .int(0)])
        XCTAssertEqual(byVersion["5.1"], [.int(10), .int(0), .int(0), .int(0)])
        XCTAssertEqual(byVersion["5.1-dev"], [.int(1), .int(1), .int(1), .int(0)])
        XCTAssertEqual(byVersion["5.2"], [.int(1), .int(1), .int(0), .int(1)])
    }

    func testSilent() throws {
        let s = try summary("silent")
        // Background: id-9, 10, 12, 13, 14, 15 by push_type, id-11 by content-available alone.
        XCTAssertEqual(s["background_sends"], .int(7))
        XCTAssertEqual(s["accepted"], .int(6))  // all but the 429
        XCTAssertEqual(s["token_hours"], .int(2))  // B at 13h (load 5), B at 14h (load 1)
        XCTAssertEqual(s["over_budget_sends"], .int(2))  // 5 - 3
        XCTAssertEqual(s["over_budget_share"], .double(0.333333))
        XCTAssertEqual(s["priority_not_5"], .int(1))  // id-9 at priority 10
        XCTAssertEqual(s["with_alert"], .int(1))  // id-13 carries an alert
        XCTAssertEqual(s["too_many_requests"], .int(1))
        let r = try table("silent", "by_hourly_rate")
        // rate 1: id-15, received after 4 s. rate 4-6: five pushes, two received after 10 s and 20 s.
        XCTAssertEqual(
            r.rows,
            [
                [.text("1"), .int(1), .int(1), .double(1), .double(4)],
                [.text("4-6"), .int(5), .int(2), .double(0.4), .double(15)],
            ])
        // A budget of 5 leaves nothing over.
        XCTAssertEqual(try summary("silent", ReportParams(budget: 5))["over_budget_sends"], .int(0))
    }

    func testOptOutByDevice() throws {
        let s = try summary("opt-out")
        // Opted in: dev1, dev2, dev5, dev6 on Monday, dev4 on Thursday (its settings). dev3 is provisional.
        XCTAssertEqual(s["opted_in"], .int(5))
        // dev1: Mon 08:00 -> Wed 12:00 (2.1667 days); dev4: Thu 10:00 -> Fri 10:00 (1 day), then on again.
        XCTAssertEqual(s["turned_off"], .int(2))
        XCTAssertEqual(s["turned_off_share"], .double(0.4))
        XCTAssertEqual(s["median_days_to_off"], .double(1.583))  // (1 + 2.16667) / 2
        // dev5's last token E got a 410 (timestamp Tue 12:00) and was never registered again.
        // dev2's C got one too, but C was registered again after the timestamp.
        XCTAssertEqual(s["uninstalled"], .int(1))
        XCTAssertEqual(s["provisional"], .int(1))  // dev3
    }

    func testOptOutByUser() throws {
        let s = try summary("opt-out", ReportParams(unit: "user"))
        // u1 opts in with dev6 (Mon 07:30) and turns off when dev1, which had opted in, does (Wed 12:00).
        XCTAssertEqual(s["opted_in"], .int(4))  // u1, u2, u4, u5
        XCTAssertEqual(s["turned_off"], .int(2))  // u1, u4
        XCTAssertEqual(s["turned_off_share"], .double(0.5))
        XCTAssertEqual(s["median_days_to_off"], .double(1.594))  // (1 + 2.1875) / 2 = 1.59375
        XCTAssertEqual(s["uninstalled"], .int(1))  // u5
        XCTAssertEqual(s["provisional"], .int(1))  // u3
        let c = try table("opt-out", "by_cohort", ReportParams(unit: "user"))
        XCTAssertEqual(c.rows.first?[0], .text("2026-W45"))
        XCTAssertEqual(c.rows.first?[1], .int(4))
    }

    func testErrors() throws {
        let t = try table("errors", "summary")
        let rows = Dictionary(
            uniqueKeysWithValues: t.rows.map { (CellFormat.plain($0[1]), Dictionary(uniqueKeysWithValues: zip(t.columns, $0))) })
        XCTAssertEqual(rows["Unregistered"]?["responses"], .int(4))
        XCTAssertEqual(rows["Unregistered"]?["tokens"], .int(3))
        XCTAssertEqual(rows["Unregistered"]?["category"], .text("token-gone"))
        // id-3 was answered 410 and then retried with the same apns_id.
        XCTAssertEqual(rows["Unregistered"]?["retried_non_retryable"], .int(1))
        XCTAssertEqual(rows["BadDeviceToken"]?["responses"], .int(2))
        XCTAssertEqual(rows["BadDeviceToken"]?["retried_non_retryable"], .int(0))
        XCTAssertEqual(rows["BadEnvironmentKeyInToken"]?["category"], .text("env-config"))
        XCTAssertEqual(rows["TooManyRequests"]?["category"], .text("rate"))
        XCTAssertEqual(rows.count, 4)
        let b = try table("errors", "by_bucket", ReportParams(by: "hour"))
        XCTAssertEqual(b.rows.first { $0[4] != .int(0) }?[0], .text("2026-11-02T11"))
    }

    func testFiltersAndFailIf() throws {
        XCTAssertEqual(try summary("gone", ReportParams(topic: "com.other.app"))["responses"], .int(0))
        XCTAssertEqual(try summary("gone", ReportParams(env: "sandbox"))["responses"], .int(0))
        let db = try Store.openForReading(path: ReportTests.dbPath)
        let doc = try ReportRunner(db: db).run(name: "gone", params: ReportParams())
        let f = try XCTUnwrap(FailIf("gone_rate > 0.2"))
        XCTAssertTrue(f.holds(try XCTUnwrap(f.observed(in: doc))))
        let g = try XCTUnwrap(FailIf("gone_rate > 25%"))
        XCTAssertFalse(g.holds(try XCTUnwrap(g.observed(in: doc))))
    }

    func testCatalogIsEveryFileOfQueriesFolder() throws {
        // The EmbedFolders plugin compiles every Queries/*.sql and Formats/Definitions/*.format
        // into the binary, as they are.
        for (dir, ext, built) in [
            ("Queries", ".sql", BuiltInQueries.files), ("Sources/PushLogKit/Formats/Definitions", ".format", BuiltInDefinitions.files),
        ] {
            let path = Fixtures.root.appendingPathComponent(dir).path
            let files = try FileManager.default.contentsOfDirectory(atPath: path).filter { $0.hasSuffix(ext) }
            XCTAssertEqual(Set(files.map { String($0.dropLast(ext.count)) }), Set(built.keys), dir)
            for f in files {
                XCTAssertEqual(built[String(f.dropLast(ext.count))], try String(contentsOfFile: path + "/" + f, encoding: .utf8), f)
            }
        }
    }

    func testCommonBlockIsSharedBySections() throws {
        let def = try ReportDefinition.parse(
            name: "x",
            text: """
                -- title: X
                -- common:
                a AS (SELECT 1 AS v)
                -- section: plain
                SELECT v FROM a;
                -- section: own_with
                -- a comment first
                WITH b AS (SELECT v + 1 AS w FROM a)
                SELECT w FROM b;
                """, origin: "test")
        let db = try Store.openForReading(path: ReportTests.dbPath)
        let doc = try ReportRunner(db: db).run(def, params: ReportParams())
        XCTAssertEqual(doc.section("plain")?.rows, [[.int(1)]])
        XCTAssertEqual(doc.section("own_with")?.rows, [[.int(2)]])
    }

    /// The common block's CTEs one by one: commas inside parentheses, quotes and comments do not split.
    func testCommonCTEsSplitAtTopLevelCommasOnly() {
        let common = """
            weeks(wk, lo, hi) AS (SELECT 0, 1, 2),
            r AS NOT MATERIALIZED (
              SELECT 'a, (b' AS x, "c,d" AS y FROM t -- a comment, with a comma (and a paren
            ), z AS (SELECT coalesce(a, b) FROM r)
            """
        let ctes = CommonCTEs.split(common)
        XCTAssertEqual(ctes.map(\.name), ["weeks", "r", "z"])
        XCTAssertEqual(ctes[2].sql, "z AS (SELECT coalesce(a, b) FROM r)")
        XCTAssertTrue(ctes[1].sql.hasSuffix("(and a paren\n)"), ctes[1].sql)
    }

    /// ClickHouse's common items are named expressions too (a bracket's commas do not split), and
    /// a statement gets the items it names, directly or through another, in their order.
    func testCommonItemsAreNamedAndAStatementGetsTheOnesItNames() {
        let common = """
            pushlog_ms({since:DateTime64(3)}) AS w_lo,
            ['reason', 'status'] AS names,
            (SELECT count() FROM t WHERE x >= w_lo) AS counted,
            kinds(a, b) AS (SELECT 1, 2),
            unused AS (SELECT names FROM kinds)
            """
        let items = CommonCTEs.split(common)
        XCTAssertEqual(items.map(\.name), ["w_lo", "names", "counted", "kinds", "unused"])
        XCTAssertEqual(CommonCTEs.needed(by: "SELECT counted + 1", of: items).map(\.name), ["w_lo", "counted"])
        XCTAssertEqual(CommonCTEs.needed(by: "SELECT * FROM unused", of: items).map(\.name), ["names", "kinds", "unused"])
        XCTAssertEqual(CommonCTEs.needed(by: "SELECT 1", of: items).map(\.name), [])
        // A name matches whatever its case, and not in a comment or a string; a trailing comment,
        // a quoted alias or a tab does not hide an item's name.
        let more = CommonCTEs.split(
            """
            Recent AS (SELECT 1 AS a),
            toInt64(1)	AS `lo`,
            b AS (SELECT 'recent' FROM t -- not recent
            ) -- the same rows AS a
            """)
        XCTAssertEqual(more.map(\.name), ["Recent", "lo", "b"])
        XCTAssertEqual(CommonCTEs.needed(by: "SELECT * FROM recent", of: more).map(\.name), ["Recent"])
        XCTAssertEqual(CommonCTEs.needed(by: "SELECT * FROM b -- lo", of: more).map(\.name), ["b"])
    }

    /// A run makes the materialized items its sections read, directly or through another.
    func testARunMakesTheTablesItsSectionsRead() throws {
        let def = try ReportDefinition.parse(
            name: "m",
            text: """
                -- materialize: a, b, c
                -- common:
                a AS (SELECT 1 AS x), b AS (SELECT x FROM a), c AS (SELECT 2 AS y)
                -- section: one
                SELECT * FROM b;
                -- section: two
                SELECT * FROM c;
                -- section: three
                SELECT 3;
                """, origin: "built-in")
        XCTAssertEqual(def.materialize(for: ["one", "three"]), ["a", "b"])
        XCTAssertEqual(def.materialize(for: ["two", "three"]), ["c"])
        XCTAssertEqual(def.materialize(for: ["one", "two"]), ["a", "b", "c"])
    }

    /// Materialized CTEs give the same sections as the inlined ones (env-mismatch's `token_envs`).
    func testMaterializedCommonCTEsGiveTheSameSections() throws {
        let catalog = try QueryCatalog()
        var def = try XCTUnwrap(catalog.report("env-mismatch"))
        XCTAssertEqual(def.materialize, ["token_envs"])
        let db = try Store.openForReading(path: ReportTests.dbPath)
        let runner = try ReportRunner(db: db, catalog: catalog)
        let with = try runner.run(def, params: ReportParams())
        def.materialize = []
        let without = try runner.run(def, params: ReportParams())
        XCTAssertEqual(JSONRenderer.render(with), JSONRenderer.render(without))
        XCTAssertFalse(with.sections.allSatisfy { $0.rows.isEmpty })
        // The temporary table is gone, and the read-only guard is back.
        XCTAssertThrowsError(try db.exec("CREATE TEMP TABLE x(a)"))
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM temp.sqlite_master"), 0)
    }

    func testReconcileCountsUntypedBackgroundPushesAsBackground() throws {
        let tmp = TempDir()
        let log = tmp.write(
            "r.ndjson",
            """
            {"time":"2026-11-14T08:00:00Z","event":"send","token":"aa","status":200,"payload":{"aps":{"content-available":1}}}
            {"time":"2026-11-14T08:01:00Z","event":"send","token":"aa","status":200,"payload":{"aps":{"alert":"hi"}}}
            {"time":"2026-11-14T08:02:00Z","event":"send","token":"aa","status":200,"push_type":"background","payload":{"aps":{"content-available":1}}}

            """)
        let csv = tmp.write(
            "apple.csv", "Push Type,Status,Date (UTC),Count\nalert,Received,2026-11-14,1\nbackground,Received,2026-11-14,2\n")
        let db = tmp.file("c.db")
        _ = try ingest([log, csv], db: db)
        let r = try Run.pushlog(["--db", db, "report", "reconcile", "--format", "json"])
        let doc = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let days = try XCTUnwrap((doc["sections"] as? [String: Any])?["by_day"] as? [[String: Any]])
        XCTAssertEqual(days.first { $0["push_type"] as? String == "alert" }?["our_accepted"] as? Int, 1)
        XCTAssertEqual(days.first { $0["push_type"] as? String == "background" }?["our_accepted"] as? Int, 2)
    }

    /// An undeclared column named as a rate (an ad-hoc query's) reads as one.
    func testShareIsAPercentageInTables() {
        let t = ResultTable(name: "q", columns: ["share"], rows: [[.double(0.0123)]])
        XCTAssertEqual(CellFormat.human(t, row: 0, column: 0), "1.23%")
    }

    func testCompactDateIsADay() {
        XCTAssertEqual(TimeArgument.parse("20261109"), TimeArgument.parse("2026-11-09"))
    }
}
