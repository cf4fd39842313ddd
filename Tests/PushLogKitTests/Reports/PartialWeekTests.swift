import Foundation
import XCTest
@testable import PushLogKit

/// A week the data covers in part (the current week on a Wednesday, the first week of a new
/// install) is not drawn as an outage: its days without data are gaps, the page says how far the
/// data goes, and its week-over-week moves are neither coloured nor called out.
final class PartialWeekTests: XCTestCase {
    /// reports.ndjson runs from Monday 2026-11-02 07:00 to Saturday 2026-11-07 10:00: in 2026-W45
    /// Sunday and the whole week before have no data.
    func testDaysWithoutDataAreGapsAndMovesAreNotColoured() throws {
        let week = ["--db", IngestedFixtures.reports, "report", "weekly", "--week", "2026-W45"]
        let r = try Run.pushlog(week + ["--format", "json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let doc = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
        let days = (doc["sections"] as! [String: Any])["trend_daily"] as! [[String: Any]]
        XCTAssertEqual(days.count, 14)
        for day in days {
            let name = day["day"] as! String
            let inData = name >= "2026-11-02" && name <= "2026-11-07"
            XCTAssertEqual(day["responses"] is NSNull, !inData, "\(day)")
        }
        XCTAssertEqual(days.first { $0["day"] as? String == "2026-11-05" }?["responses"] as? Int, 0, "a quiet day inside the data is 0")
        let notes = doc["notes"] as? [String] ?? []
        XCTAssertTrue(
            notes.contains {
                $0.hasPrefix("partial week, to 2026-11-07T10:00:00Z") && $0.contains("no data the week before")
                    && $0.contains("not coloured")
            }, "\(notes)")

        let table = try Run.pushlog(week + ["--format", "table", "--color", "always"])
        let kpis = table.stdout.components(separatedBy: "## top_reasons")[0]
        XCTAssertFalse(kpis.contains("\u{1B}[32m") || kpis.contains("\u{1B}[31m"), kpis)
        let html = try Run.pushlog(week + ["--format", "html"]).stdout
        XCTAssertTrue(html.contains("<b>What changed.</b> Partial week, to 2026-11-07T10:00:00Z"), html)
        XCTAssertFalse(html.contains("change good") || html.contains("change bad"), "no move is coloured")
    }
}
