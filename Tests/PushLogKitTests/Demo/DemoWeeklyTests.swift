import Foundation
import XCTest
@testable import PushLogKit

/// The demo corpus end to end: the weekly report has every KPI, finds the injected incident,
/// agrees with the individual reports, and its HTML draws every chart.
final class DemoWeeklyTests: XCTestCase {
    func testWeeklyOnDemoCorpus() throws {
        let tmp = TempDir()
        // Enough devices that the incident's first five minutes hold the errors it is found by.
        let o = smallDemo(devices: 1000)
        let result = try DemoGenerator(o).write(to: tmp.path + "/logs")
        let dbPath = tmp.file("demo.db")
        let s = try ingest([tmp.path + "/logs"], db: dbPath)
        XCTAssertEqual(s.rejects, result.cutLines)
        XCTAssertEqual(result.cutLines, o.weeks)
        XCTAssertEqual(s.totalRecords, result.records)
        // Deterministic: the same seed writes the same records.
        let again = try DemoGenerator(o).write(to: tmp.path + "/logs2")
        XCTAssertEqual(again.records, result.records)
        XCTAssertEqual(
            try Data(contentsOf: URL(fileURLWithPath: again.files[3])), try Data(contentsOf: URL(fileURLWithPath: result.files[3])))

        let db = try Store.openForReading(path: dbPath)
        let runner = try ReportRunner(db: db)
        XCTAssertEqual(try KPIPage.defaultWeek(db: db), result.lastWeek)
        let weekly = try runner.run(name: "weekly", params: ReportParams(week: result.lastWeek))
        // In a read snapshot with lanes the page's runs share both cores (ReportLanes, on a second
        // connection whose snapshot is this one's), with or without DB.lock and while a writer holds
        // it. Both give the page a plain run gives.
        let page = ReportParams(week: result.lastWeek)
        XCTAssertNotNil(try db.readSnapshot(lanes: true) { try runner.companion() })
        XCTAssertNil(try db.readSnapshot { try runner.companion() })
        let twoLanes = try db.readSnapshot(lanes: true) { try runner.run(name: "weekly", params: page) }
        XCTAssertEqual(JSONRenderer.render(twoLanes), JSONRenderer.render(weekly))
        // The CLI opens the second connection only for these (a few milliseconds otherwise spent
        // for nothing): the others' sections share a materialized CTE.
        XCTAssertEqual(
            runner.catalog.reports.filter { SQLiteEngine.runsOnLanes($0, params: ReportParams()) }.map(\.name).sorted(),
            ["churn", "gone", "opt-out", "reconcile", "weekly"])
        let since = TimeArgument.week(result.lastWeek)
        for def in runner.catalog.reports where def.kpis.isEmpty {  // the others' sections, likewise
            let p = ReportParams(since: since)
            let lanes = try db.readSnapshot(lanes: true) { try runner.run(name: def.name, params: p) }
            XCTAssertEqual(JSONRenderer.render(lanes), JSONRenderer.render(try runner.run(def, params: p)), def.name)
        }
        try withExtendedLifetime(try WriterLock(databasePath: dbPath)) {
            XCTAssertNotNil(try db.readSnapshot(lanes: true) { try runner.companion() })
            let whileWriting = try db.readSnapshot(lanes: true) { try runner.run(name: "weekly", params: page) }
            XCTAssertEqual(JSONRenderer.render(whileWriting), JSONRenderer.render(weekly))
        }
        let kpis = try XCTUnwrap(weekly.section("kpis"))
        let declared = try XCTUnwrap(runner.catalog.report("weekly")).kpis
        XCTAssertEqual(kpis.rows.count, declared.count)
        XCTAssertEqual(kpis.rows.map { $0[0] }, declared.map { .text($0.name) })
        for row in kpis.rows {
            XCTAssertNotEqual(row[1], .null, "KPI \(row[0]) has no value this week")
            XCTAssertNotEqual(row[2], .null, "KPI \(row[0]) has no value last week")
        }
        // Each KPI equals the figure of its own report run on that week.
        let start = TimeArgument.week(result.lastWeek)!
        let week = ReportParams(since: start, until: start + 7 * 86_400_000)
        for k in declared where k.report != "weekly" {
            let (name, report, section, column) = (k.name, k.report, k.section, k.column)
            let doc = try runner.run(name: report, params: week)
            let expected = doc.section(section)?.first(column)
            let got = kpis.rows.first { $0[0] == .text(name) }?[1]
            XCTAssertEqual(got, expected, "\(name) differs from \(report).\(column)")
        }
        // gone counts whole hours from resp_hourly and the partial hours from sends: the same
        // figures as counting sends directly, for ranges cut mid-hour, every bucket and filters.
        let topics = try db.prepare("SELECT topic FROM sends_v WHERE topic IS NOT NULL LIMIT 1")
        XCTAssertTrue(try topics.step())
        let topic = try XCTUnwrap(topics.string(0))
        // Cuts just before and after a response, so the partial hours at both ends hold data.
        let times = try db.prepare(
            """
            SELECT (SELECT time_ms FROM sends_v WHERE status IS NOT NULL AND time_ms >= ?1 ORDER BY time_ms LIMIT 1),
                   (SELECT time_ms FROM sends_v WHERE status IS NOT NULL AND time_ms >= ?1 + 172800000 ORDER BY time_ms LIMIT 1)
            """)
        times.bind(1, start - 3 * 86_400_000 + 1_234_567)
        XCTAssertTrue(try times.step())
        let cut = times.int(0) - 1, cut2 = times.int(1) + 1
        XCTAssertNotEqual(cut % 3_600_000, 0)
        for p in [
            ReportParams(), ReportParams(since: cut, until: cut2, by: "hour"),
            ReportParams(since: cut, until: cut + 3_000_000, by: "5m"), ReportParams(since: cut, by: "week", env: "sandbox"),
            ReportParams(until: cut2, by: "day", topic: topic), ReportParams(since: cut, until: cut + 120_000),
        ] {
            let since = p.since ?? -9_000_000_000_000_000, until = p.until ?? 9_000_000_000_000_000
            let filter =
                "kind IN (0, 2) AND status IS NOT NULL AND time_ms >= \(since) AND time_ms < \(until)"
                + (p.topic.map { " AND topic = '\($0)'" } ?? "") + (p.env.map { " AND env = '\($0)'" } ?? "")
            let doc = try runner.run(name: "gone", params: p)
            let direct = try db.prepare("SELECT count(*), coalesce(sum(status = 410), 0) FROM sends_v WHERE \(filter)")
            XCTAssertTrue(try direct.step())
            XCTAssertEqual(doc.section("summary")?.first("responses"), .int(direct.int(0)), "\(p)")
            XCTAssertEqual(doc.section("summary")?.first("gone"), .int(direct.int(1)), "\(p)")
            let by = p.by ?? "day"
            let buckets = try db.prepare(
                """
                SELECT bucket(b, '\(by)'), n, g, tg FROM (SELECT bucket_start(time_ms, '\(by)') AS b, count(*) AS n, sum(status = 410) AS g,
                  count(DISTINCT CASE WHEN status = 410 THEN token_id END) AS tg FROM sends_v WHERE \(filter) GROUP BY b) ORDER BY b
                """)
            var expected: [[SQLValue]] = []
            while try buckets.step() { expected.append([buckets.value(0), buckets.value(1), buckets.value(2), buckets.value(3)]) }
            let table = try XCTUnwrap(doc.section("by_bucket"))
            // Buckets without responses are present with zeros; the others match direct counts.
            let got = table.rows.filter { $0[1] != .int(0) }.map { [$0[0], $0[1], $0[2], $0[5]] }
            XCTAssertEqual(got, expected, "\(p)")
            XCTAssertTrue(table.rows.filter { $0[1] == .int(0) }.allSatisfy { $0[2] == .int(0) && $0[4] == .int(0) })
            let labels = table.rows.map { CellFormat.plain($0[0]) }
            XCTAssertEqual(labels, labels.sorted(), "\(p)")
            XCTAssertEqual(Set(labels).count, labels.count, "\(p)")
            // tokens_gone adds up to the summary's.
            XCTAssertEqual(
                table.rows.map { $0[4].asDouble ?? 0 }.reduce(0, +),
                doc.section("summary")?.first("tokens_gone")?.asDouble, "\(p)")
        }

        // The expired-JWT incident is found, with its window.
        let incidents = try XCTUnwrap(weekly.section("incidents"))
        XCTAssertTrue(incidents.rows.contains { CellFormat.plain($0[3]).contains("ExpiredProviderToken") }, "\(incidents.rows)")
        XCTAssertTrue(incidents.rows.contains { CellFormat.plain($0[0]).hasSuffix("T14:10:00Z") })

        // HTML: self-contained, every chart has points.
        let html = OutputFormat.html.render(weekly)
        XCTAssertFalse(html.contains("http://") || html.contains("https://") || html.contains("<script src"))
        let charts = html.components(separatedBy: "<svg").count - 1
        XCTAssertGreaterThanOrEqual(charts, 5)
        let points = html.components(separatedBy: "data-points=\"").dropFirst().map { Int($0.prefix { $0.isNumber }) ?? 0 }
        XCTAssertEqual(points.count, charts)
        XCTAssertTrue(points.allSatisfy { $0 > 0 }, "a chart without data: \(points)")

        // Last, as it changes the data: a commit that falls between two runs of one snapshot
        // (`--compare previous` runs the report twice) is seen by neither run, on either lane.
        // A connection of its own: the statements above still hold this one's read open.
        let reader = try ReportRunner(db: try Store.openForReading(path: dbPath))
        let writer = try Store.openForWriting(path: dbPath)
        let (before, after, lanes) = try reader.db.readSnapshot(lanes: true) { () throws -> (String, String, Bool) in
            let a = JSONRenderer.render(try reader.run(name: "gone", params: ReportParams()))
            try writer.exec("DELETE FROM hourly_responses")  // what gone counts whole hours from
            return (a, JSONRenderer.render(try reader.run(name: "gone", params: ReportParams())), try reader.companion() != nil)
        }
        XCTAssertTrue(lanes)
        XCTAssertEqual(after, before)
        XCTAssertNotEqual(JSONRenderer.render(try reader.run(name: "gone", params: ReportParams())), before)
        // A statement still stepping holds its connection's old snapshot (BEGIN keeps it): no
        // second connection then, which would see the new state.
        let pending = try db.prepare("SELECT 1 FROM sqlite_master")
        XCTAssertTrue(try pending.step())
        XCTAssertNil(try db.readSnapshot(lanes: true) { try runner.companion() })
    }
}
