import Foundation
import XCTest
@testable import PushLogKit

/// The Monday page on a small hand-made weekly document: labels, coloured changes, the "what
/// changed" paragraph, round ticks, dated labels, this week and the incidents marked.
final class WeeklyPageTests: XCTestCase {
    func document() -> ResultDocument {
        var kpis = ResultTable(name: "kpis", columns: ["metric", "this_week", "last_week", "change", "source"])
        kpis.rows = [
            [.text("responses"), .int(1000), .int(900), .int(100), .text("gone.responses")],  // +11 %, neutral
            [.text("gone_rate"), .double(0.03), .double(0.02), .double(0.01), .text("gone.gone_rate")],  // +50 %, worse
            [.text("auth_errors"), .int(12), .int(0), .int(12), .text("weekly.auth_errors")],  // from 0: largest
            [.text("accepted_share"), .double(0.95), .double(0.949), .double(0.001), .text("weekly.accepted_share")],  // tiny, better
            [.text("superseded_sends"), .int(40), .int(70), .int(-30), .text("churn.superseded_sends")],  // -43 %, better
            [.text("rejects"), .int(0), .int(0), .int(0), .text("weekly.rejects")],
        ]
        var incidents = ResultTable(
            name: "incidents", columns: ["window_start", "window_end", "minutes", "reason", "errors", "responses", "error_share"])
        incidents.rows = [
            [
                .text("2026-11-10T14:10:00Z"), .text("2026-11-10T14:50:00Z"), .int(40), .text("auth: ExpiredProviderToken"),
                .int(50), .int(50), .double(1),
            ]
        ]
        var daily = ResultTable(name: "trend_daily", columns: ["day", "responses", "gone_rate"])
        let start = TimeArgument.parse("2026-11-02")!
        for d in 0..<14 {
            daily.rows.append([
                .text(TimeFormat.day(ms: start + Int64(d) * 86_400_000)), .int(Int64(100 + d * 37)),
                d == 3 ? .null : .double(0.001 * Double(d)),
            ])
        }
        return described(
            ResultDocument(
                report: "weekly", title: "Weekly push health — 2026-W46",
                params: [("week", .text("2026-W46")), ("since", .text("2026-11-09T00:00:00Z")), ("until", .text("2026-11-16T00:00:00Z"))],
                sections: [kpis, incidents, daily]))
    }

    /// The document with what weekly.sql and its sources declare its columns and KPIs mean.
    func described(_ doc: ResultDocument) -> ResultDocument {
        var doc = doc
        let catalog = try! QueryCatalog()
        KPIPage.describe(&doc, catalog.report("weekly")!, catalog: catalog)
        return doc
    }

    func testKPIsReadAsPeopleSpeakAndChangesAreColouredByDirection() {
        let html = HTMLRenderer.render(document())
        XCTAssertTrue(html.contains("<td title=\"gone_rate\">Gone (410) rate</td>"), html)
        XCTAssertTrue(html.contains("<td title=\"auth_errors\">Auth errors (JWT/certificate)</td>"))
        // Up is bad for the gone rate, down is good for superseded sends, responses have no side.
        XCTAssertTrue(html.contains("<td class=\"num change bad moved\">▲ +1.00 pp</td>"), html)
        XCTAssertTrue(html.contains("<td class=\"num change good moved\">▼ -30</td>"))
        // A move the paragraph does not name (the fourth), or one too small for it, keeps its
        // colour but no background: the shading follows the paragraph.
        XCTAssertTrue(html.contains("<td class=\"num change flat\">▲ +100</td>"), html)
        XCTAssertTrue(html.contains("<td class=\"num change good\">▲ +0.10 pp</td>"))
        XCTAssertTrue(html.contains("<td class=\"num change flat\">0</td>"))
        // Rates as percentages.
        XCTAssertTrue(html.contains("<td class=num>3.00%</td>"))
    }

    func testWhatChanged() {
        let text = WeeklyPage.whatChanged(document())
        // Largest relative moves first: auth errors (from 0), gone rate (+50 %), superseded (-43 %).
        let auth = text.range(of: "Auth errors")!, gone = text.range(of: "Gone (410) rate")!,
            sup = text.range(of: "Sends to replaced tokens")!
        XCTAssertTrue(auth.lowerBound < gone.lowerBound && gone.lowerBound < sup.lowerBound, text)
        XCTAssertTrue(text.contains("<b>Gone (410) rate</b> rose from 2.00% to 3.00% (+1.00 pp) (worse)."), text)
        XCTAssertTrue(text.contains("<b>Sends to replaced tokens</b> fell from 70 to 40 (−30) (better)."), text)
        XCTAssertFalse(text.contains("APNs responses"), "only the three largest moves")
        XCTAssertTrue(text.contains("1 incident: Tue 10 Nov 14:10–14:50 UTC, auth: ExpiredProviderToken (50 errors in 40 min)."), text)

        var calm = document()
        calm.sections = [
            ResultTable(
                name: "kpis", columns: ["metric", "this_week", "last_week", "change"],
                rows: [[.text("responses"), .int(100), .int(98), .int(2)]])
        ]
        calm = described(calm)
        XCTAssertEqual(WeeklyPage.whatChanged(calm), "No KPI moved by 10 % or more from last week. No incidents.")
    }

    /// A count moves past its week-to-week noise; a rate by 10 % of its smaller side.
    func testMovesAreMeasuredAgainstNoiseAndTheSmallerSide() {
        func moved(_ metric: String, _ this: SQLValue, _ last: SQLValue) -> Bool {
            var doc = document()
            doc.sections = [
                ResultTable(
                    name: "kpis", columns: ["metric", "this_week", "last_week", "change"],
                    rows: [[.text(metric), this, last, .double((this.asDouble ?? 0) - (last.asDouble ?? 0))]])
            ]
            doc = described(doc)
            return !WeeklyPage.moves(doc.kpis!).isEmpty
        }
        XCTAssertFalse(moved("too_many_requests", .int(12), .int(19)), "7 in 31 is noise")
        XCTAssertTrue(moved("too_many_requests", .int(120), .int(190)))
        XCTAssertTrue(moved("accepted_share", .double(0.9434), .double(0.95)), "failures rose by 13 %")
        XCTAssertFalse(moved("accepted_share", .double(0.948), .double(0.95)))
        XCTAssertTrue(moved("gone_rate", .double(0.057), .double(0.05)))
    }

    /// A hygiene rule reads as words, its id in the tooltip; other keys (reasons) as they are.
    func testRuleIdsReadAsWords() {
        var doc = document()
        doc.sections.append(
            ResultTable(
                name: "provider_hygiene", columns: ["rule", "reason", "this_week"],
                rows: [[.text("non_retryable_retried"), .text("ExpiredProviderToken"), .int(3)]]))
        let html = HTMLRenderer.render(described(doc))
        XCTAssertTrue(html.contains("<td title=\"non_retryable_retried\">Non retryable retried</td>"), html)
        XCTAssertTrue(html.contains("<td>ExpiredProviderToken</td>"), html)
    }

    /// 1,868 next to 14,070, not 1868: thousands are grouped from the first thousand.
    func testThousandsAreGroupedFromOneThousand() {
        XCTAssertEqual(CellFormat.grouped(999), "999")
        XCTAssertEqual(CellFormat.grouped(1868), "1,868")
        XCTAssertEqual(CellFormat.grouped(-14070), "-14,070")
        XCTAssertEqual(CellFormat.human(.int(1868), column: "responses", rate: false), "1,868")
    }

    func testChartsHaveRoundTicksDatesThisWeekAndIncidents() throws {
        XCTAssertEqual(TrendChart.ticks(maxValue: 581, rate: false), [0, 200, 400, 600])
        XCTAssertEqual(TrendChart.ticks(maxValue: 15, rate: false), [0, 5, 10, 15])
        XCTAssertEqual(TrendChart.ticks(maxValue: 3, rate: false), [0, 1, 2, 3])
        XCTAssertEqual(TrendChart.ticks(maxValue: 0, rate: false), [0, 1])
        XCTAssertEqual(
            TrendChart.ticks(maxValue: 0.0543, rate: true).map { TrendChart.tickLabel($0, rate: true) }, ["0%", "2%", "4%", "6%"])
        XCTAssertEqual(
            TrendChart.ticks(maxValue: 0.0093, rate: true).map { TrendChart.tickLabel($0, rate: true) },
            ["0%", "0.25%", "0.5%", "0.75%", "1%"])
        XCTAssertEqual(TrendChart.tickLabel(25_000, rate: false), "25k")
        XCTAssertEqual(TrendChart.shortLabel("2026-11-09"), "9 Nov")
        XCTAssertEqual(TrendChart.shortLabel("2026-W45"), "W45")

        let html = HTMLRenderer.render(document())
        let svgs = html.components(separatedBy: "<svg").dropFirst()
        XCTAssertEqual(svgs.count, 2)  // responses and gone_rate per day
        for svg in svgs {
            // Responses top at 100 + 13·37 = 581: ticks 0..600 by 200.
            XCTAssertTrue(svg.contains(">9 Nov</text>"), "dated x labels")
            XCTAssertEqual(svg.components(separatedBy: "class=thisweek").count - 1, 1)
            XCTAssertTrue(svg.contains("this week</text>"))
            XCTAssertEqual(svg.components(separatedBy: "class=incident").count - 1, 1)
            XCTAssertTrue(svg.contains("<title>Tue 10 Nov 14:10–14:50 UTC"))
        }
        XCTAssertTrue(svgs.first!.contains(">600</text>") && svgs.first!.contains(">400</text>"), String(svgs.first!))
        // The gone rate's missing day is a gap: two line pieces, 13 points.
        XCTAssertEqual(svgs.last!.components(separatedBy: "<polyline").count - 1, 2)
        XCTAssertEqual(svgs.last!.components(separatedBy: "<circle").count - 1, 13)
        XCTAssertTrue(html.contains("<figcaption>Gone (410) rate, per day</figcaption>"))
    }

    /// The page is only for people: JSON and CSV keep the machine names.
    func testMachineNamesStayInJSON() {
        let json = JSONRenderer.render(document())
        XCTAssertTrue(json.contains("\"metric\":\"gone_rate\""))
        XCTAssertFalse(json.contains("Gone (410) rate"))
    }

    /// The opt-out KPIs say what they count: devices by default, users with --unit user; the
    /// page shows the unit, and its lower tables read as words.
    func testTurnOffIsLabelledByItsUnit() throws {
        let db = IngestedFixtures.reports
        let devices = try Run.pushlog(["--db", db, "report", "weekly", "--week", "2026-W45", "--format", "html"]).stdout
        XCTAssertTrue(devices.contains("Devices turning notifications off") && devices.contains("unit=device"))
        XCTAssertFalse(devices.contains("Users turning"))
        let users = try Run.pushlog(["--db", db, "report", "weekly", "--week", "2026-W45", "--unit", "user", "--format", "html"]).stdout
        XCTAssertTrue(users.contains("Users turning notifications off") && users.contains("unit=user"))
        XCTAssertTrue(devices.contains("<th title=\"response_share\">Response share</th>"), "lower tables read as words")
    }

    /// The page explains its incidents: on the demo's week with the expired-JWT incident, the
    /// incident in "what changed" links to a section that names the cause, its onset, the first
    /// records to trace and the command that tells the rest. Only the page runs `explain`: the
    /// JSON of the same report has none of it.
    func testIncidentsLinkToTheirExplanation() throws {
        let tmp = TempDir()
        // Devices enough for the incident's errors to stand out of the hour before it.
        let result = try DemoGenerator(smallDemo(devices: 1500, weeks: 2)).write(to: tmp.path + "/logs")
        let db = tmp.file("demo.db")
        _ = try ingest([tmp.path + "/logs"], db: db)
        let page = try Run.pushlog(["--db", db, "report", "weekly", "--week", result.lastWeek, "-o", tmp.file("week.html")])
        XCTAssertEqual(page.status, 0, page.stderr)
        let html = try String(contentsOfFile: tmp.file("week.html"), encoding: .utf8)
        let changed = html.components(separatedBy: "<p class=changed>").last!.components(separatedBy: "</p>")[0]
        XCTAssertTrue(changed.contains("<a href=\"#incident-1\">"), changed)
        let section = try XCTUnwrap(html.components(separatedBy: "<section id=incident-1 class=explained>").dropFirst().first)
        XCTAssertTrue(section.contains("of the increase is ExpiredProviderToken"), section)
        XCTAssertTrue(section.contains(", from 14:10 UTC."), section)
        XCTAssertTrue(section.contains("First records to trace") && section.contains("pushlog trace "), section)
        XCTAssertTrue(section.contains("<code>pushlog explain --since 2026-"), section)
        let json = try Run.pushlog(["--db", db, "report", "weekly", "--week", result.lastWeek, "--format", "json"]).stdout
        XCTAssertFalse(json.contains("ExpiredProviderToken, from") || json.contains("pushlog explain --since"))
    }
}
