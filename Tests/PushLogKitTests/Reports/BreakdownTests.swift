import Foundation
import XCTest
@testable import PushLogKit

/// `--by topic|env|app_version|push_type|reason` and `--compare previous` on
/// Tests/Fixtures/reports.ndjson (the tokens of ReportTests: A and E on app 5.0, B and C on 5.1,
/// D on 5.1-dev, M on 5.2; every response to com.example.app in production).
final class BreakdownTests: XCTestCase {
    static var dbPath: String { IngestedFixtures.reports }

    /// Ingests before the first test.
    override class func setUp() { _ = dbPath }

    func doc(_ report: String, _ p: ReportParams) throws -> ResultDocument {
        try ReportRunner(db: try Store.openForReading(path: BreakdownTests.dbPath)).run(name: report, params: p)
    }

    func rows(_ t: ResultTable?) -> [String: [String: SQLValue]] {
        var out: [String: [String: SQLValue]] = [:]
        for r in t?.rows ?? [] { out[CellFormat.plain(r[0])] = Dictionary(uniqueKeysWithValues: zip(t!.columns, r)) }
        return out
    }

    func testGoneByAppVersionAndPushType() throws {
        let v = rows(try doc("gone", ReportParams(by: "app_version")).section("by_bucket"))
        // 5.0: A's four responses (id-1, id-2, id-3 twice) and E's id-17; 410s: id-3 twice, id-17.
        XCTAssertEqual(v["5.0"]?["responses"], .int(5))
        XCTAssertEqual(v["5.0"]?["gone"], .int(3))
        XCTAssertEqual(v["5.0"]?["tokens_gone"], .int(2))
        // 5.1: B's eight (id-9..id-16) and C's two (id-5, a 410, and id-6).
        XCTAssertEqual(v["5.1"]?["responses"], .int(10))
        XCTAssertEqual(v["5.1"]?["gone"], .int(1))
        XCTAssertEqual(v["5.1-dev"]?["responses"], .int(1))
        XCTAssertEqual(v["5.2"]?["responses"], .int(1))
        XCTAssertEqual(v.count, 4)
        let p = rows(try doc("gone", ReportParams(by: "push_type")).section("by_bucket"))
        XCTAssertEqual(p["(none)"]?["responses"], .int(1))  // id-11: content-available, no push_type
        XCTAssertEqual(p["background"]?["responses"], .int(6))  // id-9, 10, 12, 13, 14, 15
        XCTAssertEqual(p["alert"]?["gone"], .int(4))
        // topic and env come from resp_hourly for whole hours: the same single bucket.
        XCTAssertEqual(rows(try doc("gone", ReportParams(by: "topic")).section("by_bucket"))["com.example.app"]?["responses"], .int(17))
    }

    func testEnvMismatchAndSilentAndErrorsByDimension() throws {
        let v = rows(try doc("env-mismatch", ReportParams(by: "app_version")).section("by_bucket"))
        XCTAssertEqual(v["5.1-dev"]?["mismatched_sends"], .int(1))  // id-7, D registered sandbox
        XCTAssertEqual(v["5.2"]?["malformed_token_sends"], .int(1))  // id-8 to M
        XCTAssertEqual(v["5.1"]?["env_key_errors"], .int(1))  // id-16
        // No --by: no by_bucket section (the report has no default breakdown).
        XCTAssertNil(try doc("env-mismatch", ReportParams()).section("by_bucket"))
        XCTAssertNil(try doc("silent", ReportParams()).section("by_bucket"))
        let s = rows(try doc("silent", ReportParams(by: "app_version")).section("by_bucket"))
        XCTAssertEqual(s["5.1"]?["over_budget_sends"], .int(2))
        XCTAssertEqual(s["5.1"]?["token_hours"], .int(2))
        XCTAssertEqual(s["5.1"]?["too_many_requests"], .int(1))
        let e = try XCTUnwrap(try doc("errors", ReportParams(by: "push_type")).section("by_bucket"))
        XCTAssertEqual(e.rows.filter { $0[0] == .text("background") }.map { $0[2] }, [.text("TooManyRequests")])
    }

    /// For every report and dimension it takes, the buckets add up to the summary.
    func testBucketsAddUpToTheSummary() throws {
        try checkBucketsAddUp(dbPath: BreakdownTests.dbPath, ranges: [ReportParams()])
    }

    /// The same on a demo corpus, over all of it and over a range cut mid-hour (gone reads whole
    /// hours from resp_hourly and the partial hours from sends).
    func testBucketsAddUpOnTheDemoCorpus() throws {
        let tmp = TempDir()
        _ = try DemoGenerator(smallDemo(devices: 150)).write(to: tmp.path + "/logs")
        let dbPath = tmp.file("demo.db")
        _ = try ingest([tmp.path + "/logs"], db: dbPath)
        let db = try Store.openForReading(path: dbPath)
        let lo = try XCTUnwrap(db.scalarInt("SELECT min(time_ms) FROM sends_v")),
            hi = try XCTUnwrap(db.scalarInt("SELECT max(time_ms) FROM sends_v"))
        let mid = lo + (hi - lo) / 3 + 1_234_567
        try checkBucketsAddUp(dbPath: dbPath, ranges: [ReportParams(), ReportParams(since: mid, until: mid + 4 * 86_400_000 + 999_999)])
    }

    func checkBucketsAddUp(dbPath: String, ranges: [ReportParams]) throws {
        let runner = try ReportRunner(db: try Store.openForReading(path: dbPath))
        let cases: [(String, [String], [String])] = [
            ("gone", ["topic", "env", "app_version", "push_type", "reason"], ["responses", "gone", "tokens_gone"]),
            (
                "env-mismatch", ["topic", "env", "app_version", "push_type", "reason"],
                [
                    "responses", "mismatched_sends", "bad_device_token", "bad_device_token_explained", "malformed_token_sends",
                    "env_key_errors",
                ]
            ),
            (
                "silent", ["topic", "env", "app_version"],
                ["background_sends", "accepted", "token_hours", "over_budget_sends", "priority_not_5", "with_alert", "too_many_requests"]
            ),
            ("errors", ["topic", "env", "app_version", "push_type", "reason"], ["responses"]),
        ]
        for range in ranges {
            for budget in [Int64(1), 3] {
                for (report, dims, columns) in cases {
                    for by in dims {
                        var p = range
                        p.by = by
                        p.budget = budget
                        let d = try runner.run(name: report, params: p)
                        let summary = try XCTUnwrap(d.section("summary")), buckets = try XCTUnwrap(d.section("by_bucket"))
                        XCTAssertFalse(buckets.rows.isEmpty, "\(report) --by \(by)")
                        for c in columns {
                            let total = summary.rows.reduce(0) { $0 + ($1[summary.column(c)!].asDouble ?? 0) }
                            let sum = buckets.rows.reduce(0) { $0 + ($1[buckets.column(c)!].asDouble ?? 0) }
                            XCTAssertEqual(sum, total, "\(report) --by \(by) --budget \(budget): \(c)")
                        }
                    }
                }
            }
        }
    }

    func testUnsupportedByIsAUsageError() throws {
        for (report, by) in [("silent", "reason"), ("silent", "day"), ("churn", "topic"), ("opt-out", "topic"), ("gone", "device")] {
            let r = try Run.pushlog(["--db", BreakdownTests.dbPath, "report", report, "--by", by])
            XCTAssertEqual(r.status, 2, "\(report) --by \(by)")
            XCTAssertTrue(r.stderr.contains("--by"), r.stderr)
        }
        XCTAssertEqual(
            try Run.pushlog(["--db", BreakdownTests.dbPath, "report", "gone", "--by", "app_version", "--format", "csv"]).status, 0)
    }

    func testComparePrevious() throws {
        // Tue-Wed against Sun-Mon: now id-6 (200) and id-17 (410); before the 15 Monday responses
        // with three 410s (id-3 twice, id-5).
        let p = ReportParams(since: TimeArgument.parse("2026-11-03")!, until: TimeArgument.parse("2026-11-05")!, by: "day")
        let d = try ReportRunner(db: try Store.openForReading(path: BreakdownTests.dbPath)).runComparingPrevious(name: "gone", params: p)
        let summary = try XCTUnwrap(d.section("summary"))
        let s = Dictionary(uniqueKeysWithValues: zip(summary.columns, summary.rows[0]))
        XCTAssertEqual(s["responses"], .int(2))
        XCTAssertEqual(s["responses_prev"], .int(15))
        XCTAssertEqual(s["responses_change"], .int(-13))
        XCTAssertEqual(s["gone_rate"], .double(0.5))
        XCTAssertEqual(s["gone_rate_prev"], .double(0.2))
        XCTAssertEqual(s["gone_rate_change"], .double(0.3))  // +30 percentage points
        XCTAssertEqual(d.section("summary")?.columns.prefix(4), ["responses", "responses_prev", "responses_change", "gone"])
        // Per bucket: Wednesday 11-04 against the day one range (two days) earlier, Monday 11-02.
        let b = rows(d.section("by_bucket"))
        XCTAssertEqual(b["2026-11-04"]?["responses_prev"], .int(15))
        XCTAssertEqual(b["2026-11-04"]?["gone_change"], .int(-2))
        XCTAssertTrue(d.params.contains { $0.0 == "previous_since" && $0.1 == .text("2026-11-01T00:00:00Z") })

        // errors: reasons seen only before still show, with zero now.
        let e = try ReportRunner(db: try Store.openForReading(path: BreakdownTests.dbPath)).runComparingPrevious(name: "errors", params: p)
        let er = try XCTUnwrap(e.section("summary"))
        let bdt = try XCTUnwrap(er.rows.first { $0[er.column("reason")!] == .text("BadDeviceToken") })
        XCTAssertEqual(bdt[er.column("responses")!], .int(0))
        XCTAssertEqual(bdt[er.column("responses_prev")!], .int(2))
        XCTAssertEqual(bdt[er.column("responses_change")!], .int(-2))

        // The CLI: tables show rate changes in percentage points; usage errors name the fix.
        let r = try Run.pushlog([
            "--db", BreakdownTests.dbPath, "report", "gone", "--since", "2026-11-03", "--until", "2026-11-05", "--compare", "previous",
            "--format", "markdown",
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("+30.0 pp"), r.stdout)
        let json = try Run.pushlog([
            "--db", BreakdownTests.dbPath, "report", "env-mismatch", "--since", "2026-11-03", "--until", "2026-11-05", "--compare",
            "previous", "--by", "app_version", "--format", "json",
        ])
        XCTAssertEqual(json.status, 0, json.stderr)
        XCTAssertTrue(json.stdout.contains("\"mismatched_sends_prev\":1"), json.stdout)
        let fail = try Run.pushlog([
            "--db", BreakdownTests.dbPath, "report", "gone", "--since", "2026-11-03", "--until", "2026-11-05", "--compare", "previous",
            "--fail-if", "gone_rate_change > 0.1", "--format", "csv",
        ])
        XCTAssertEqual(fail.status, 3, fail.stderr)
        XCTAssertEqual(try Run.pushlog(["--db", BreakdownTests.dbPath, "report", "gone", "--compare", "previous"]).status, 2)  // no --since
        XCTAssertEqual(try Run.pushlog(["--db", BreakdownTests.dbPath, "report", "gone", "--since", "7d", "--compare", "last"]).status, 2)
        XCTAssertEqual(try Run.pushlog(["--db", BreakdownTests.dbPath, "report", "weekly", "--compare", "previous"]).status, 2)
    }
}
