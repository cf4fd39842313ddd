import Foundation
import XCTest
@testable import PushLogKit

/// A figure the logs cannot show is not a zero: logs in other tools' own shapes lack an env
/// (gorush), registrations (all of them) or the token of a failure (rpush), and the figures that
/// need those come out empty, with a note naming what is missing, on every output; `--fail-if`
/// on them exits 1. Where only some records carry it, the figure says what share it covers.
final class NeedsTests: XCTestCase {
    static func database(_ tmp: TempDir, _ fixtures: [String]) throws -> String {
        let db = tmp.file("needs.db")
        _ = try ingest(fixtures.map(Fixtures.path), db: db)
        return db
    }

    static func json(_ r: Run) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
    }

    static func rows(_ doc: [String: Any], _ section: String) -> [[String: Any]] {
        (doc["sections"] as! [String: Any])[section] as! [[String: Any]]
    }

    static func notes(_ doc: [String: Any]) -> [String] { doc["notes"] as? [String] ?? [] }

    /// rpush logs a failure by notification id, without its token: 410s are counted, but which
    /// tokens went and what was sent to them after cannot be known.
    func testRpushFailuresCarryNoToken() throws {
        let tmp = TempDir()
        let db = try Self.database(tmp, ["rpush.log", "rpush-field.log"])
        let r = try Run.pushlog(["--db", db, "report", "gone", "--format", "json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let doc = try Self.json(r)
        let summary = Self.rows(doc, "summary")[0]
        XCTAssertEqual(summary["gone"] as? Int, 2)
        XCTAssertTrue(summary["tokens_gone"] is NSNull, "\(summary)")
        XCTAssertTrue(summary["sends_after_gone"] is NSNull, "\(summary)")
        for row in Self.rows(doc, "by_bucket") {
            XCTAssertTrue(row["tokens_gone"] is NSNull && row["tokens_with_410"] is NSNull, "\(row)")
            XCTAssertNotNil(row["gone"] as? Int)
        }
        XCTAssertTrue(Self.notes(doc).contains { $0.contains("tokens_gone") && $0.contains("the 410 responses carry no device token") })
        // Neither a pass nor a breach; a condition on what the logs show is judged as ever.
        let fail = try Run.pushlog(["--db", db, "report", "gone", "--fail-if", "tokens_gone > 0"])
        XCTAssertEqual(fail.status, 1, fail.stderr)
        XCTAssertTrue(fail.stderr.contains("tokens_gone is not observable"), fail.stderr)
        XCTAssertEqual(try Run.pushlog(["--db", db, "report", "gone", "--fail-if", "gone > 0"]).status, 3)
        // CSV keeps its columns, the cells empty, and says why on stderr; a table shows the note.
        let csv = try Run.pushlog(["--db", db, "report", "gone", "--section", "summary", "--format", "csv"])
        XCTAssertEqual(csv.stdout, "responses,gone,gone_rate,tokens_gone,sends_after_gone\n8,2,0.25,,\n")
        XCTAssertTrue(csv.stderr.contains("not observable: tokens_gone"), csv.stderr)
        let table = try Run.pushlog(["--db", db, "report", "gone", "--format", "table"])
        XCTAssertTrue(table.stdout.contains("note: not observable: tokens_gone"), table.stdout)
        // Compared: no change of a figure that neither range can show.
        let compared = try Self.json(
            try Run.pushlog([
                "--db", db, "report", "gone", "--since", "2026-11-03", "--until", "2026-11-04", "--compare", "previous", "--format", "json",
            ]))
        let row = Self.rows(compared, "summary")[0]
        XCTAssertTrue(row["tokens_gone_prev"] is NSNull && row["tokens_gone_change"] is NSNull, "\(row)")
        XCTAssertEqual(row["gone_change"] as? Int, 0)
    }

    /// gorush logs no APNs env and the app no registrations: a mismatch cannot be seen, on the
    /// report, the weekly page and in the metrics.
    func testGorushLogsCarryNoEnvAndNoRegistrations() throws {
        let tmp = TempDir()
        let db = try Self.database(tmp, ["gorush.log", "gorush-terminal.log", "gorush-api.log"])
        let doc = try Self.json(try Run.pushlog(["--db", db, "report", "env-mismatch", "--format", "json"]))
        let summary = Self.rows(doc, "summary")[0]
        XCTAssertTrue(summary["mismatched_sends"] is NSNull, "\(summary)")
        XCTAssertTrue(summary["bad_device_token_explained"] is NSNull, "\(summary)")
        XCTAssertEqual(summary["bad_device_token"] as? Int, 2)
        XCTAssertTrue(
            Self.notes(doc).contains {
                $0.contains("mismatched_sends") && $0.contains("the responses carry no APNs env") && $0.contains("no registrations")
            }, "\(doc)")
        let fail = try Run.pushlog(["--db", db, "report", "env-mismatch", "--fail-if", "mismatched_sends > 0"])
        XCTAssertEqual(fail.status, 1, fail.stderr)

        let week = ["--db", db, "report", "weekly", "--week", "2026-W45"]
        let page = try Self.json(try Run.pushlog(week + ["--format", "json"]))
        let kpi = Self.rows(page, "kpis").first { $0["metric"] as? String == "mismatched_sends" }!
        XCTAssertTrue(kpi["this_week"] is NSNull && kpi["change"] is NSNull, "\(kpi)")
        for day in Self.rows(page, "trend_daily") { XCTAssertTrue(day["mismatched_sends"] is NSNull, "\(day)") }
        XCTAssertTrue(Self.notes(page).contains { $0.hasPrefix("this week: not observable: mismatched_sends") }, "\(page)")
        XCTAssertEqual(try Run.pushlog(week + ["--fail-if", "mismatched_sends > 0"]).status, 1)
        let html = try Run.pushlog(week + ["--format", "html"])
        XCTAssertTrue(html.stdout.contains("not observable: mismatched_sends"))

        let metrics = try Run.pushlog(["--db", db, "metrics"])
        XCTAssertEqual(metrics.status, 0, metrics.stderr)
        XCTAssertFalse(metrics.stdout.contains("pushlog_mismatched_sends"), metrics.stdout)
        XCTAssertTrue(metrics.stdout.contains("pushlog_gone_rate 0.375"), metrics.stdout)
    }

    /// Some 410s carry their token (Parse Server), rpush's do not: the figures cover those that do
    /// and say so; a figure covered in full says nothing.
    func testPartlyCarriedFiguresSayTheirShare() throws {
        let tmp = TempDir()
        let db = try Self.database(tmp, ["rpush.log", "rpush-field.log", "parse-server.log"])
        let doc = try Self.json(try Run.pushlog(["--db", db, "report", "gone", "--format", "json"]))
        XCTAssertEqual(Self.rows(doc, "summary")[0]["tokens_gone"] as? Int, 1)
        XCTAssertEqual(Self.rows(doc, "summary")[0]["gone"] as? Int, 3)
        XCTAssertEqual(
            Self.notes(doc), ["tokens_gone, sends_after_gone, tokens_with_410 cover 33.3% of the 410 responses (those with a device token)"]
        )
        XCTAssertEqual(try Run.pushlog(["--db", db, "report", "gone", "--fail-if", "tokens_gone > 0"]).status, 3)
        let covered = try Self.json(try Run.pushlog(["--db", IngestedFixtures.reports, "report", "gone", "--format", "json"]))
        XCTAssertTrue(Self.notes(covered).isEmpty, "\(covered)")
    }

    /// A need is declared on the column's header line; one the catalog does not know stops it
    /// loading, with the file and line.
    func testAnUnknownNeedIsRefused() throws {
        let tmp = TempDir()
        _ = tmp.write(
            "mine.sql", "-- title: Mine\n-- records: responses\n-- column: n count needs=envv\n-- section: summary\nSELECT 1 AS n;\n")
        XCTAssertThrowsError(try QueryCatalog(userDirectory: tmp.path)) { e in
            XCTAssertTrue("\(e)".contains("mine.sql:3") && "\(e)".contains("needs=envv"), "\(e)")
        }
    }

    /// docs/reports.md states what each column needs, as the headers declare it.
    func testTheDocsListEveryColumnsNeeds() throws {
        let catalog = try QueryCatalog()
        let docs = try String(contentsOfFile: Fixtures.root.appendingPathComponent("docs/reports.md").path, encoding: .utf8)
        let part = docs.components(separatedBy: "## What a figure needs from the records")[1].components(separatedBy: "\n## ")[0]
        var listed = Set<String>()
        for line in part.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            let report = cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            guard cells.count == 3, report != "weekly", catalog.report(report) != nil else { continue }
            for column in cells[1].split(separator: ",") {
                listed.insert("\(report).\(column.trimmingCharacters(in: .whitespaces)): \(cells[2])")
            }
        }
        var declared = Set<String>()
        for def in catalog.reports where !def.isKPIPage {
            for (name, info) in def.columns where !info.needs.isEmpty {
                declared.insert("\(def.name).\(name): \(info.needs.map(\.rawValue).joined(separator: ", "))")
            }
        }
        XCTAssertEqual(listed, declared)
    }
}
