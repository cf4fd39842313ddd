import Foundation
import XCTest
@testable import PushLogKit

/// The hygiene report and the retry definition of errors.retried_non_retryable, on
/// Tests/Fixtures/hygiene.ndjson (figures derived by hand below), on a log without headers or
/// payloads (hygiene-bare.ndjson), and on the demo corpus against the silent, gone and errors
/// reports.
///
/// hygiene.ndjson, Monday 2026-11-02 unless said (tokens P Q G W hex, X malformed, all
/// registered at 07:00; X by app 6.0):
///   h-1..h-4 P background: h-2 priority 10, h-3 has a sound, h-4 has no push_type (by
///     content-available alone).
///   h-5..h-10 Q alert: h-6 `"aps":{}` (nothing to show), h-8 mutable-content with only a
///     badge, h-9 mutable-content with an alert, h-10 no payload logged.
///   h-11 W 503 at 10:00:00, retried 400 ms later (same apns-id, attempt 2, 200).
///   h-13 W 429 at 10:30:00, retried at :05 (429 again, attempt 2), then at :08 (attempt 3,
///     200): the second wait (3 s) is not longer than the first (5 s). h-16 W 500, not retried.
///   h-17 G 410 at 12:00 (APNs timestamp 11:00); h-18 12:00:02 attempt 2 (410); h-19 12:30
///     attempt 1 (410); h-20 13:31 attempt 2 (410): 61 min after h-19, 91 after h-18. G
///     registered again at 15:00; h-34 to G on Tuesday.
///   h-23 Q 400 BadDeviceToken (collapse c-1) at 16:00; Q registered at 16:10; h-25 16:20
///     attempt 2 and h-26 16:30 collapse c-1: after the registration.
///   h-27 Q 400 BadCollapseId (collapse c-2) at 17:00; h-28 17:20 attempt 1, collapse c-2.
///   h-29 Q 413 at 18:00:00, :01 and :02 with the same apns-id; h-32 18:10 attempt 2 to
///     another topic. h-33 X 400 BadDeviceToken at 19:00.
///   Tuesday: h-35 P 403 ExpiredProviderToken, h-36 P 429 TooManyProviderTokenUpdates.
/// 33 responses in all.
final class HygieneTests: XCTestCase {
    // Static lets (initialised once, thread-safely), not vars set in setUp: Swift 6 refuses
    // shared mutable statics.
    static let tmp = TempDir()
    static let dbPath: String = {
        let path = tmp.file("hygiene.db")
        _ = try! ingest([Fixtures.path("hygiene.ndjson")], db: path)
        return path
    }()
    static let barePath: String = {
        let path = tmp.file("bare.db")
        _ = try! ingest([Fixtures.path("hygiene-bare.ndjson")], db: path)
        return path
    }()

    /// Ingests before the first test, as before.
    override class func setUp() { _ = (dbPath, barePath) }

    func run(_ report: String, _ p: ReportParams = ReportParams(), db: String = HygieneTests.dbPath) throws -> ResultDocument {
        try ReportRunner(db: try Store.openForReading(path: db)).run(name: report, params: p)
    }

    /// rule -> column -> value
    func rules(_ p: ReportParams = ReportParams(), db: String = HygieneTests.dbPath) throws -> [String: [String: SQLValue]] {
        let t = try XCTUnwrap(try run("hygiene", p, db: db).section("rules"))
        var out: [String: [String: SQLValue]] = [:]
        for row in t.rows { out[CellFormat.plain(row[0])] = Dictionary(uniqueKeysWithValues: zip(t.columns, row)) }
        return out
    }

    // MARK: errors.retried_non_retryable

    func testRetriedNonRetryableDefinition() throws {
        let t = try XCTUnwrap(try run("errors").section("summary"))
        let rows = Dictionary(
            uniqueKeysWithValues: t.rows.map { (CellFormat.plain($0[1]), Dictionary(uniqueKeysWithValues: zip(t.columns, $0))) })
        // h-18 (attempt 2, 2 s after h-17) is a retry of h-17. h-19 (attempt 1, new apns-id, no
        // collapse-id) is a new send, not a retry; h-20 (attempt 2) comes more than an hour after
        // every earlier 410. h-18 is itself a 410: no later retry within its hour either.
        XCTAssertEqual(rows["Unregistered"]?["responses"], .int(4))
        XCTAssertEqual(rows["Unregistered"]?["retried_non_retryable"], .int(1))
        // h-23 and h-33: Q registered again at 16:10, before h-25 (attempt 2) and h-26 (same
        // collapse-id): not retries. X was never sent to again.
        XCTAssertEqual(rows["BadDeviceToken"]?["retried_non_retryable"], .int(0))
        // h-28 has a new apns-id and attempt 1 but the collapse-id of h-27.
        XCTAssertEqual(rows["BadCollapseId"]?["retried_non_retryable"], .int(1))
        // h-29 three times: the second retries the first, the third the second (the latest
        // error before it), so two retries; h-32 goes to another topic.
        XCTAssertEqual(rows["PayloadTooLarge"]?["responses"], .int(3))
        XCTAssertEqual(rows["PayloadTooLarge"]?["retried_non_retryable"], .int(2))
        // Retryable errors are not counted.
        XCTAssertEqual(rows["TooManyRequests"]?["retried_non_retryable"], .int(0))
        XCTAssertEqual(rows["ServiceUnavailable"]?["retried_non_retryable"], .int(0))
        // Selected by the error's time: Monday 12:00 to 12:00:01 holds h-17 only, and its retry counts.
        let p = ReportParams(since: TimeArgument.parse("2026-11-02T12:00:00Z")!, until: TimeArgument.parse("2026-11-02T12:00:01Z")!)
        XCTAssertEqual(try run("errors", p).section("summary")?.first("retried_non_retryable"), .int(1))
    }

    // MARK: the rules, by hand

    func testEveryRuleOnTheFixture() throws {
        let r = try rules()
        XCTAssertEqual(
            try run("hygiene").section("rules")?.rows.map { CellFormat.plain($0[0]) },
            [
                "background_with_alert", "background_priority_10", "alert_without_content", "missing_push_type",
                "mutable_without_alert", "retry_without_backoff", "non_retryable_retried", "sent_after_gone",
                "malformed_token", "provider_token_refresh",
            ])
        func check(
            _ rule: String, _ violations: Int64, _ checked: Int64, _ share: Double, _ example: String,
            file: StaticString = #filePath, line: UInt = #line
        ) {
            XCTAssertEqual(r[rule]?["violations"], .int(violations), "\(rule) violations", file: file, line: line)
            XCTAssertEqual(r[rule]?["checked"], .int(checked), "\(rule) checked", file: file, line: line)
            XCTAssertEqual(r[rule]?["share"], .double(share), "\(rule) share", file: file, line: line)
            XCTAssertEqual(r[rule]?["example"], .text(example), "\(rule) example", file: file, line: line)
        }
        // Background pushes: h-1..h-4. h-3 has a sound; h-2 is at priority 10.
        check("background_with_alert", 1, 4, 0.25, "h-3")
        check("background_priority_10", 1, 4, 0.25, "h-2")
        // Alert pushes whose payload was logged: h-5..h-9 and W's six (h-10 has none); h-6 is empty.
        check("alert_without_content", 1, 11, 0.090909, "h-6")
        // Every response but h-4 has a push_type; the one source logs headers on both days.
        check("missing_push_type", 1, 33, 0.030303, "h-4")
        // h-8 and h-9 are mutable; h-8 has no alert (a badge is not one).
        check("mutable_without_alert", 1, 2, 0.5, "h-8")
        // Retried 429/5xx: h-11 (400 ms later: too soon), h-13 (5 s: fine), its retry at :05
        // (then 3 s <= 5 s: no backoff). h-16 was not retried; h-36 is an auth error.
        check("retry_without_backoff", 2, 3, 0.666667, "h-11")
        // The 4 retries above; checked: the 10 non-retryable errors (h-17..h-20, h-23, h-27,
        // three h-29, h-33) and h-28, the one retry that is not itself such an error.
        check("non_retryable_retried", 4, 11, 0.363636, "h-18")
        // h-18, h-19, h-20 after G's first 410 (h-17); h-34 follows G's registration at 15:00.
        check("sent_after_gone", 3, 33, 0.090909, "h-18")
        check("malformed_token", 1, 33, 0.030303, "h-33")
        check("provider_token_refresh", 2, 33, 0.060606, "h-35")
        // Times: retries are dated by the error they follow (h-11 at 10:00, h-13's retry at 10:30:05).
        XCTAssertEqual(r["retry_without_backoff"]?["first_seen"], .text("2026-11-02T10:00:00Z"))
        XCTAssertEqual(r["retry_without_backoff"]?["last_seen"], .text("2026-11-02T10:30:05Z"))
        XCTAssertEqual(r["non_retryable_retried"]?["first_seen"], .text("2026-11-02T12:00:00Z"))
        XCTAssertEqual(r["non_retryable_retried"]?["last_seen"], .text("2026-11-02T18:00:01Z"))
        XCTAssertEqual(r["sent_after_gone"]?["first_seen"], .text("2026-11-02T12:00:02Z"))
        XCTAssertEqual(r["sent_after_gone"]?["last_seen"], .text("2026-11-02T13:31:00Z"))
        XCTAssertEqual(r["missing_push_type"]?["first_seen"], .text("2026-11-02T08:15:00Z"))
        XCTAssertEqual(r["malformed_token"]?["example_token"], .text("{length = 32, bytes = 0xabcdef01 ... 23456789}"))
        XCTAssertEqual(r["malformed_token"]?["detail"], .text("registered by app versions 6.0 (1 tokens)"))
        XCTAssertEqual(r["provider_token_refresh"]?["detail"], .text("ExpiredProviderToken 1, TooManyProviderTokenUpdates 1"))
        XCTAssertTrue(r.values.allSatisfy { CellFormat.plain($0["advice"] ?? .null).count > 20 })

        let days = try XCTUnwrap(try run("hygiene").section("by_day"))
        XCTAssertEqual(
            days.rows.filter { $0[0] == .text("2026-11-02") }.map { [$0[1], $0[2]] },
            [
                [.text("background_with_alert"), .int(1)], [.text("background_priority_10"), .int(1)],
                [.text("alert_without_content"), .int(1)], [.text("missing_push_type"), .int(1)],
                [.text("mutable_without_alert"), .int(1)], [.text("retry_without_backoff"), .int(2)],
                [.text("non_retryable_retried"), .int(4)], [.text("sent_after_gone"), .int(3)],
                [.text("malformed_token"), .int(1)],
            ])
        XCTAssertEqual(
            days.rows.filter { $0[0] == .text("2026-11-03") }.map { [$0[1], $0[2]] },
            [[.text("provider_token_refresh"), .int(2)]])
    }

    func testRangeAndRuleFilter() throws {
        // Tuesday alone: h-34, h-35, h-36. G re-registered, so h-34 is no send after gone.
        let tue = try rules(ReportParams(since: TimeArgument.parse("2026-11-03")!, until: TimeArgument.parse("2026-11-04")!))
        XCTAssertEqual(tue["provider_token_refresh"]?["violations"], .int(2))
        XCTAssertEqual(tue["provider_token_refresh"]?["checked"], .int(3))
        XCTAssertEqual(tue["sent_after_gone"]?["violations"], .int(0))
        // No payloads logged on Tuesday: the payload rules are not observable there.
        XCTAssertEqual(tue["alert_without_content"]?["violations"], .text("not observable"))
        let one = try run("hygiene", ReportParams(rule: "sent_after_gone"))
        XCTAssertEqual(one.section("rules")?.rows.count, 1)
        XCTAssertEqual(one.section("rules")?.first("violations"), .int(3))
        XCTAssertEqual(one.section("by_day")?.rows.map { $0[1] }, [.text("sent_after_gone")])
        XCTAssertEqual(try run("hygiene", ReportParams(rule: "no_such_rule")).section("rules")?.rows.count, 0)
    }

    func testSameFiguresAsSilentGoneAndErrorsOnTheFixture() throws {
        let r = try rules()
        let silent = try XCTUnwrap(try run("silent").section("summary"))
        XCTAssertEqual(r["background_with_alert"]?["violations"], silent.first("with_alert"))
        XCTAssertEqual(r["background_priority_10"]?["violations"], silent.first("priority_not_5"))
        XCTAssertEqual(r["sent_after_gone"]?["violations"], try run("gone").section("summary")?.first("sends_after_gone"))
    }

    // MARK: not observable

    func testRulesWithoutTheirDataAreNotObservable() throws {
        // hygiene-bare.ndjson: token B 200, 410, 410, C 403 ExpiredProviderToken and a token the
        // log masked (`****`) 200; no apns-id, header, payload or attempt anywhere.
        let r = try rules(db: HygieneTests.barePath)
        for rule in [
            "background_with_alert", "background_priority_10", "alert_without_content", "missing_push_type",
            "mutable_without_alert", "retry_without_backoff", "non_retryable_retried",
        ] {
            XCTAssertEqual(r[rule]?["violations"], .text("not observable"), rule)
            XCTAssertEqual(r[rule]?["share"], .null, rule)
            XCTAssertFalse(CellFormat.plain(r[rule]?["detail"] ?? .null).isEmpty, rule)
        }
        XCTAssertEqual(r["missing_push_type"]?["detail"], .text("no APNs headers logged (push_type, priority, collapse_id, expiration)"))
        // B's second 410 comes after its first: a send after gone (no registration at all).
        XCTAssertEqual(r["sent_after_gone"]?["violations"], .int(1))
        // A masked token is the log's doing, not a malformed upload: not counted, nor checked.
        XCTAssertEqual(r["malformed_token"]?["violations"], .int(0))
        XCTAssertEqual(r["malformed_token"]?["checked"], .int(4))
        XCTAssertEqual(r["provider_token_refresh"]?["violations"], .int(1))
        XCTAssertEqual(r["provider_token_refresh"]?["checked"], .int(5))
        // by_day leaves the rules that are not observable out.
        let days = try XCTUnwrap(try run("hygiene", db: HygieneTests.barePath).section("by_day"))
        XCTAssertEqual(days.rows.map { $0[1] }, [.text("sent_after_gone"), .text("provider_token_refresh")])
    }

    func testPayloadWithoutAlertIsStoredAsNone() throws {
        // An aps object without alert, sound or badge stores 0 (none), a push without a payload NULL.
        let db = try Store.openForReading(path: HygieneTests.dbPath)
        XCTAssertEqual(try db.scalarInt("SELECT has_alert * 100 + has_sound * 10 + has_badge FROM sends_v WHERE apns_id = 'h-6'"), 0)
        XCTAssertEqual(try db.scalarInt("SELECT has_alert * 100 + has_sound * 10 + has_badge FROM sends_v WHERE apns_id = 'h-7'"), 10)
        XCTAssertEqual(
            try db.scalarInt("SELECT count(*) FROM sends_v WHERE apns_id = 'h-10' AND has_alert IS NULL AND has_sound IS NULL"), 1)
    }

    // MARK: the command line

    func testRuleOptionAndFailIf() throws {
        let db = HygieneTests.dbPath
        // A deploy check on one rule: exit 3 when broken, 0 when not.
        XCTAssertEqual(
            try Run.pushlog([
                "--db", db, "report", "hygiene", "--rule", "sent_after_gone", "--fail-if", "violations > 0", "--format", "tsv",
            ]).status, 3)
        XCTAssertEqual(
            try Run.pushlog([
                "--db", db, "report", "hygiene", "--rule", "sent_after_gone", "--fail-if", "violations > 5", "--format", "tsv",
            ]).status, 0)
        // Without --rule the first row would answer for the wrong rule: refused.
        let all = try Run.pushlog(["--db", db, "report", "hygiene", "--fail-if", "violations > 0"])
        XCTAssertEqual(all.status, 2)
        XCTAssertTrue(all.stderr.contains("--rule"), all.stderr)
        XCTAssertEqual(all.stdout, "")
        // An unknown rule is a usage error with the closest id.
        let typo = try Run.pushlog(["--db", db, "report", "hygiene", "--rule", "sent_after_gon"])
        XCTAssertEqual(typo.status, 2)
        XCTAssertTrue(typo.stderr.contains("did you mean --rule sent_after_gone?"), typo.stderr)
        XCTAssertEqual(try Run.pushlog(["--db", db, "report", "gone", "--rule", "sent_after_gone"]).status, 2)
        // A rule the logs cannot show is neither a pass nor a breach.
        let bare = try Run.pushlog([
            "--db", HygieneTests.barePath, "report", "hygiene", "--rule", "missing_push_type", "--fail-if", "violations > 0",
        ])
        XCTAssertEqual(bare.status, 1)
        XCTAssertTrue(bare.stderr.contains("not observable"), bare.stderr)
    }

    /// The weekly page's hygiene block is the hygiene report run on each week: the same rows
    /// and values as `report hygiene` over that week (no copy of its rules to drift).
    func testWeeklyBlockIsTheHygieneReportOfEachWeek() throws {
        let db = Self.tmp.file("weeks.db")
        _ = try ingest([Fixtures.path("hygiene.ndjson")], db: db)
        let page = try Run.pushlog(["--db", db, "report", "weekly", "--week", "2026-W45", "--format", "json"])
        let doc = try JSONSerialization.jsonObject(with: Data(page.stdout.utf8)) as! [String: Any]
        let block = (doc["sections"] as! [String: Any])["provider_hygiene"] as! [[String: Any]]
        XCTAssertFalse(block.isEmpty)
        let week = try Run.pushlog(["--db", db, "report", "hygiene", "--since", "2026-W45", "--until", "2026-W46", "--format", "json"])
        let rules =
            ((try JSONSerialization.jsonObject(with: Data(week.stdout.utf8)) as! [String: Any])["sections"] as! [String: Any])["rules"]
            as! [[String: Any]]
        for row in block {
            let rule = rules.first { $0["rule"] as? String == row["rule"] as? String }
            XCTAssertEqual("\(rule?["violations"] ?? "missing")", "\(row["this_week"] ?? "missing")", "\(row)")
        }
    }

    // MARK: the demo corpus

    func testDemoCorpusAgreesWithSilentGoneAndErrors() throws {
        let tmp = TempDir()
        let o = smallDemo(devices: 300)
        let result = try DemoGenerator(o).write(to: tmp.path + "/logs")
        let dbPath = tmp.file("demo.db")
        _ = try ingest([tmp.path + "/logs"], db: dbPath)
        let runner = try ReportRunner(db: try Store.openForReading(path: dbPath))
        let start = TimeArgument.week(result.lastWeek)!
        for p in [
            ReportParams(), ReportParams(since: start, until: start + 7 * 86_400_000),
            ReportParams(topic: DemoGenerator.widgetsTopic), ReportParams(topic: DemoGenerator.topic),
        ] {
            let h = try XCTUnwrap(try runner.run(name: "hygiene", params: p).section("rules"))
            func rule(_ id: String) -> SQLValue? {
                h.rows.first { $0[0] == .text(id) }.map { $0[h.column("violations")!] }
            }
            let silent = try XCTUnwrap(try runner.run(name: "silent", params: p).section("summary"))
            XCTAssertEqual(rule("background_with_alert"), silent.first("with_alert"), "\(p)")
            XCTAssertEqual(rule("background_priority_10"), silent.first("priority_not_5"), "\(p)")
            XCTAssertEqual(
                rule("sent_after_gone"), try runner.run(name: "gone", params: p).section("summary")?.first("sends_after_gone"), "\(p)")
            let errors = try XCTUnwrap(try runner.run(name: "errors", params: p).section("summary"))
            let retried = errors.rows.reduce(Int64(0)) {
                $0 + ($1[errors.column("retried_non_retryable")!].asDouble.map { Int64($0) } ?? 0)
            }
            XCTAssertEqual(rule("non_retryable_retried"), .int(retried), "\(p)")
        }
        // Whole hours come from hygiene_hourly and the partial hours at the ends from sends: the
        // same figures as counting sends directly, for ranges cut mid-hour and a topic filter.
        let db = try Store.openForReading(path: dbPath)
        let cut = start - 3 * 86_400_000 + 12 * 3_600_000 + 1_234_567, cut2 = start + 2 * 86_400_000 + 765_432
        for p in [
            ReportParams(since: cut, until: cut2), ReportParams(since: cut, until: cut + 2_000_000),
            ReportParams(since: cut, topic: DemoGenerator.widgetsTopic), ReportParams(until: cut2),
        ] {
            let since = p.since ?? -9_000_000_000_000_000, until = p.until ?? 9_000_000_000_000_000
            let filter =
                "kind IN (0, 2) AND status IS NOT NULL AND time_ms >= \(since) AND time_ms < \(until)"
                + (p.topic.map { " AND topic = '\($0)'" } ?? "")
            let direct = try db.prepare(
                """
                WITH r AS (SELECT coalesce(source_id, 0) AS source_id, time_ms / 86400000 AS day, * FROM sends_v WHERE \(filter)),
                     h AS (SELECT source_id, day FROM r GROUP BY 1, 2
                           HAVING max(push_type IS NOT NULL OR priority IS NOT NULL OR collapse_id IS NOT NULL OR expiration IS NOT NULL))
                SELECT (SELECT count(*) FROM r JOIN h USING (source_id, day)), (SELECT count(*) FROM r JOIN h USING (source_id, day) WHERE push_type IS NULL),
                       coalesce(sum(push_type = 'alert' AND has_alert IS NOT NULL), 0),
                       coalesce(sum(push_type = 'alert' AND has_alert = 0 AND has_sound = 0 AND has_badge = 0), 0),
                       coalesce(sum(mutable_content = 1 AND has_alert IS NOT NULL), 0), coalesce(sum(mutable_content = 1 AND has_alert = 0), 0)
                FROM r
                """)
            XCTAssertTrue(try direct.step())
            let h = try XCTUnwrap(try runner.run(name: "hygiene", params: p).section("rules"))
            func cells(_ id: String) -> [SQLValue] {
                let row = h.rows.first { $0[0] == .text(id) }!
                return [row[h.column("checked")!], row[h.column("violations")!]]
            }
            XCTAssertEqual(cells("missing_push_type"), [.int(direct.int(0)), .int(direct.int(1))], "\(p)")
            XCTAssertEqual(cells("alert_without_content"), [.int(direct.int(2)), .int(direct.int(3))], "\(p)")
            XCTAssertEqual(cells("mutable_without_alert")[0], .int(direct.int(4)), "\(p)")
            if direct.int(4) > 0 { XCTAssertEqual(cells("mutable_without_alert")[1], .int(direct.int(5)), "\(p)") }
        }
        // The demo breaks every rule a few times, and its retried 410s count as retries now
        // (they have a new apns-id and attempt 2; they were 0 under the old same-apns-id rule).
        let all = try XCTUnwrap(try runner.run(name: "hygiene", params: ReportParams()).section("rules"))
        for row in all.rows {
            let v = row[all.column("violations")!]
            XCTAssertGreaterThan(v.asDouble ?? 0, 0, "the demo never breaks \(row[0]): \(v)")
        }
        let gone = try XCTUnwrap(try runner.run(name: "errors", params: ReportParams()).section("summary"))
        let unregistered = try XCTUnwrap(gone.rows.first { $0[1] == .text("Unregistered") })
        XCTAssertGreaterThan(unregistered[gone.column("retried_non_retryable")!].asDouble ?? 0, 0)
        // The weekly page's provider hygiene block: each rule broken in either week, with the
        // figures of the hygiene report run on each week.
        let weekly = try runner.run(name: "weekly", params: ReportParams(week: result.lastWeek))
        let block = try XCTUnwrap(weekly.section("provider_hygiene"))
        XCTAssertEqual(block.columns, ["rule", "this_week", "last_week", "change"])
        let this = try XCTUnwrap(
            try runner.run(name: "hygiene", params: ReportParams(since: start, until: start + 7 * 86_400_000)).section("rules"))
        let last = try XCTUnwrap(
            try runner.run(name: "hygiene", params: ReportParams(since: start - 7 * 86_400_000, until: start)).section("rules"))
        let broken = this.rows.indices.filter { (this.rows[$0][1].asDouble ?? 0) > 0 || (last.rows[$0][1].asDouble ?? 0) > 0 }
        XCTAssertEqual(block.rows.map { $0[0] }, broken.map { this.rows[$0][0] })
        for (row, i) in zip(block.rows, broken) {
            XCTAssertEqual(row[1], this.rows[i][1], "\(row[0]) this week")
            XCTAssertEqual(row[2], last.rows[i][1], "\(row[0]) last week")
        }
        XCTAssertGreaterThanOrEqual(block.rows.count, 8)
        // The widgets app's violations stay on its own topic: the main app keeps these rules.
        let main = try XCTUnwrap(try runner.run(name: "hygiene", params: ReportParams(topic: DemoGenerator.topic)).section("rules"))
        for id in ["background_with_alert", "alert_without_content", "mutable_without_alert"] {
            XCTAssertEqual(main.rows.first { $0[0] == .text(id) }?[1], .int(0), id)
        }
    }
}
