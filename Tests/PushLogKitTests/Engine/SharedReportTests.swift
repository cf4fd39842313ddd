import Foundation
import XCTest
@testable import PushLogKit

/// A report written once, in a `--queries` folder, against the documented relations: the same
/// figures on the SQLite store and on ClickHouse (chDB behind scripts/clickhouse_http.py), and its
/// own typed parameter reaches the SQL on both, by its default and by `--NAME VALUE`.
final class SharedReportTests: XCTestCase {
    /// The report: an int parameter of its own, a text filter that is NULL when not given, the
    /// range, a rate, count(DISTINCT), a CASE, a NULL-safe division and an ORDER BY with a total order.
    static let report = """
        -- title: Responses at or above a status
        -- description: Responses whose HTTP status is at least a threshold, overall and per topic and reason.
        -- param: since time  start of the range
        -- param: until time  end of the range
        -- param: topic text  only this APNs topic
        -- param: min_status int = 400  the lowest status counted
        -- records: responses
        -- column: share rate
        -- column: topic key
        -- column: reason key
        -- section: summary
        SELECT count(*) AS responses,
               sum(CASE WHEN status >= :min_status THEN 1 ELSE 0 END) AS at_or_above,
               1.0 * sum(CASE WHEN status >= :min_status THEN 1 ELSE 0 END) / nullif(count(*), 0) AS share,
               count(DISTINCT token) AS tokens, :min_status AS min_status
        FROM responses_v
        WHERE time_ms >= :since AND time_ms < :until AND (:topic IS NULL OR topic = :topic);
        -- section: by_reason
        SELECT topic, reason, count(*) AS responses, min(time) AS first, max(apns_id) AS last_apns_id
        FROM responses_v
        WHERE status >= :min_status AND time_ms >= :since AND time_ms < :until AND (:topic IS NULL OR topic = :topic)
        GROUP BY topic, reason
        ORDER BY responses DESC, topic NULLS FIRST, reason NULLS FIRST;
        """

    func testAUserReportGivesTheSameFiguresOnBothEngines() throws {
        let server = try ChDBServer.start()
        defer { server.stop() }
        let dir = TempDir()
        let queries = dir.file("queries")
        try FileManager.default.createDirectory(atPath: queries, withIntermediateDirectories: true)
        _ = dir.write("queries/at-status.sql", Self.report)
        // reports.ndjson: responses of several statuses; export.ndjson: a response logged apart
        // from its request, which takes the request's token and topic on both engines.
        let logs = [Fixtures.path("reports.ndjson"), Fixtures.path("export.ndjson")]
        let db = dir.file("shared.db")
        let stores = [["--db", db], ["--clickhouse", server.url("shared_report")]]
        for store in stores {
            let r = try Run.pushlog(store + ["ingest", "--quiet"] + logs)
            XCTAssertEqual(r.status, 0, r.stderr)
        }

        func both(_ options: [String]) throws -> String {
            let outs = try stores.map { store in
                let r = try Run.pushlog(store + ["report", "at-status", "--queries", queries, "--format", "json"] + options)
                XCTAssertEqual(r.status, 0, "\(store[0]) \(options): \(r.stderr)")
                return r.stdout
            }
            XCTAssertEqual(outs[0], outs[1], "SQLite and ClickHouse differ for \(options)")
            return outs[0]
        }
        func summary(_ json: String) throws -> [String: Any] {
            let doc = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
            let sections = try XCTUnwrap(doc["sections"] as? [String: Any])
            return try XCTUnwrap((sections["summary"] as? [[String: Any]])?.first)
        }

        // The default reaches the SQL: 400 and above.
        let byDefault = try summary(both([]))
        XCTAssertEqual(byDefault["min_status"] as? Int, 400)
        XCTAssertEqual(byDefault["responses"] as? Int, 19)
        XCTAssertEqual(byDefault["at_or_above"] as? Int, 9)
        // So does the option, parsed as the declared int.
        let given = try summary(both(["--min_status", "410"]))
        XCTAssertEqual(given["min_status"] as? Int, 410)
        XCTAssertEqual(given["at_or_above"] as? Int, 6)
        // The range and the text filter, given and not.
        _ = try both(["--since", "2026-11-02T09:00:00Z", "--until", "2026-11-03", "--min_status", "200"])
        let none = try summary(both(["--topic", "no.such.topic"]))
        XCTAssertEqual(none["responses"] as? Int, 0)
        XCTAssertTrue(none["share"] is NSNull, "a share over no responses is empty on both engines")
        // A value of the wrong type is refused before either engine is asked.
        for store in stores {
            let r = try Run.pushlog(store + ["report", "at-status", "--queries", queries, "--min_status", "high"])
            XCTAssertEqual(r.status, 2, r.stderr)
        }
    }

    /// reconcile is a built-in report written once: ClickHouse runs its one text, over the
    /// relations both engines have, and prints what SQLite prints: days with and without
    /// responses, a push type told from the payload, a range that cuts days, no Apple rows at all.
    func testReconcileIsWrittenOnceAndAgrees() throws {
        XCTAssertNil(ClickHouseQueries.reports["reconcile"], "reconcile has no ClickHouse version")
        let server = try ChDBServer.start()
        defer { server.stop() }
        let dir = TempDir()
        let log = dir.write(
            "sends.ndjson",
            """
            {"time":"2026-11-14T08:00:00Z","event":"send","token":"aa","status":200,"push_type":"alert"}
            {"time":"2026-11-14T09:00:00Z","event":"send","token":"aa","status":200,"payload":{"aps":{"alert":"hi"}}}
            {"time":"2026-11-14T10:00:00Z","event":"send","token":"bb","status":410,"reason":"Unregistered","push_type":"alert"}
            {"time":"2026-11-14T11:00:00Z","event":"send","token":"cc","status":200,"payload":{"aps":{"content-available":1}}}
            {"time":"2026-11-14T23:59:59.999Z","event":"send","token":"cc","status":200,"push_type":"background"}
            {"time":"2026-11-15T00:00:00Z","event":"send","token":"aa","status":200,"push_type":"alert"}

            """)
        let csv = dir.write(
            "apple.csv",
            """
            Push Type,Status,Date (UTC),Count
            alert,Received,2026-11-13,5
            alert,Received,2026-11-14,2
            alert,Delivered,2026-11-14,2
            alert,Discarded (Disabled),2026-11-14,1
            background,Received,2026-11-14,2
            alert,Received,2026-11-15,3

            """)
        let stores = [["--db", dir.file("r.db")], ["--clickhouse", server.url("reconcile")]]
        for store in stores {
            let r = try Run.pushlog(store + ["ingest", "--quiet", log])
            XCTAssertEqual(r.status, 0, r.stderr)
        }
        func both(_ options: [String]) throws -> String {
            let outs = try stores.map { store in
                let r = try Run.pushlog(store + ["report", "reconcile"] + options)
                XCTAssertEqual(r.status, 0, "\(store[0]) \(options): \(r.stderr)")
                return r.stdout + r.stderr
            }
            XCTAssertEqual(outs[0], outs[1], "SQLite and ClickHouse differ for \(options)")
            return outs[0]
        }
        XCTAssertTrue(try both(["--format", "tsv"]).contains("no Apple delivery metrics"), "no Apple rows yet")
        for store in stores {
            let r = try Run.pushlog(store + ["ingest", "--quiet", csv])
            XCTAssertEqual(r.status, 0, r.stderr)
        }
        let json = try both(["--format", "json"])
        for options in [["--format", "tsv"], ["--since", "2026-11-14T12:00:00Z", "--until", "2026-11-15T06:00:00Z", "--format", "json"]] {
            _ = try both(options)
        }
        let doc = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let days = try XCTUnwrap((doc["sections"] as? [String: Any])?["by_day"] as? [[String: Any]])
        func day(_ d: String, _ type: String) -> [String: Any]? {
            days.first { $0["day"] as? String == d && $0["push_type"] as? String == type }
        }
        XCTAssertEqual(day("2026-11-13", "alert")?["our_responses"] as? Int, 0)
        XCTAssertEqual(day("2026-11-14", "alert")?["our_responses"] as? Int, 3)
        XCTAssertEqual(day("2026-11-14", "alert")?["our_accepted"] as? Int, 2)
        XCTAssertEqual(day("2026-11-14", "background")?["our_accepted"] as? Int, 2, "one told from its payload, one by its header")
        XCTAssertEqual(day("2026-11-15", "alert")?["difference_share"] as? Double, -0.666667)
    }

    /// SQLite's dimension ids do not exist on ClickHouse: a shared report that binds one is
    /// refused there with what to write instead, not run with a NULL.
    func testADimensionIDIsRefusedOnClickHouse() throws {
        let text = """
            -- param: topic text  only this topic
            -- section: summary
            SELECT count(*) AS n FROM sends WHERE topic_id = :topic_id
            """
        let def = try ReportDefinition.parse(name: "ids", text: text, origin: "/tmp/ids.sql")
        XCTAssertThrowsError(try ClickHouseEngine.placeholding(def.sections[0].sql, of: def)) {
            XCTAssertTrue("\($0)".contains("topic = :topic"), "\($0)")
        }
        let shared = try ReportDefinition.parse(
            name: "p",
            text: "-- param: n int = 5\n-- param: t text\n-- section: s\n" + "SELECT :n AS n, ':n' AS s, :t AS t, :limit AS l -- :n\n",
            origin: "/tmp/p.sql")
        XCTAssertEqual(
            try ClickHouseEngine.placeholding(shared.sections[0].sql, of: shared),
            "SELECT {n:Nullable(Int64)} AS n, ':n' AS s, {t:Nullable(String)} AS t, {limit:Int64} AS l -- :n")
    }
}
