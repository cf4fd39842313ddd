import Foundation
import XCTest
@testable import PushLogKit

/// The demo corpus end to end: the weekly report has every KPI, finds the injected incident,
/// agrees with the individual reports, and its HTML draws every chart.
final class DemoWeeklyTests: XCTestCase {
    func testWeeklyOnDemoCorpus() throws {
        let tmp = TempDir()
        var o = DemoOptions()
        o.devices = 300
        o.weeks = 3
        o.gzipLevel = 1
        let result = try DemoGenerator(o).write(to: tmp.path + "/logs")
        let dbPath = tmp.file("demo.db")
        let s = try ingest([tmp.path + "/logs"], db: dbPath)
        XCTAssertEqual(s.rejects, 0)
        XCTAssertEqual(s.totalRecords, result.records)
        // Deterministic: the same seed writes the same records.
        let again = try DemoGenerator(o).write(to: tmp.path + "/logs2")
        XCTAssertEqual(again.records, result.records)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: again.files[3])), try Data(contentsOf: URL(fileURLWithPath: result.files[3])))

        let db = try Store.openForReading(path: dbPath)
        let runner = try ReportRunner(db: db)
        XCTAssertEqual(try WeeklyReport.defaultWeek(db: db), result.lastWeek)
        let weekly = try runner.run(name: "weekly", params: ReportParams(week: result.lastWeek))
        let kpis = try XCTUnwrap(weekly.section("kpis"))
        XCTAssertEqual(kpis.rows.count, WeeklyReport.kpis.count)
        for row in kpis.rows {
            XCTAssertNotEqual(row[1], .null, "KPI \(row[0]) has no value this week")
            XCTAssertNotEqual(row[2], .null, "KPI \(row[0]) has no value last week")
        }
        // Each KPI equals the figure of its own report run on that week.
        let start = TimeArgument.week(result.lastWeek)!
        let week = ReportParams(since: start, until: start + 7 * 86_400_000)
        for (name, report, section, column) in WeeklyReport.kpis where report != "weekly" {
            let doc = try runner.run(name: report, params: week)
            let expected = doc.section(section)?.first(column)
            let got = kpis.rows.first { $0[0] == .text(name) }?[1]
            XCTAssertEqual(got, expected, "\(name) differs from \(report).\(column)")
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
    }
}
