import Foundation
import XCTest
@testable import PushLogKit

/// The weekly page draws only what the data covers: the week the clock is still in says it is
/// partial and leaves its changes empty, and no day before the first record or after the last
/// one of a week in progress is drawn as a zero.
final class WeeklyCoverageTests: XCTestCase {
    private let hour: Int64 = 3_600_000, day: Int64 = 86_400_000

    /// Sends every few hours from the Thursday of last week to a minute ago, run as a user runs
    /// the page on the current week and on the week before.
    func testTheCurrentWeekIsPartialAndTheDaysWithoutDataAreNotDrawn() throws {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let start = TimeFormat.weekStart(ms: now)
        let first = start - KPIPage.week + 3 * day
        var lines: [String] = []
        var t = first
        var n = 0
        while t < now - 60_000 {
            n += 1
            let status = n % 7 == 0 ? 410 : 200
            lines.append(
                #"{"time":"\#(TimeFormat.rfc3339(ms: t))","event":"send","token":"\#(String(format: "%064x", n % 40))","apns_id":"00000000-0000-0000-0000-\#(String(format: "%012d", n))","env":"production","topic":"com.example.app","status":\#(status)}"#
            )
            t += t < start ? 3 * hour : hour
        }
        let tmp = TempDir()
        let log = tmp.write("sends.ndjson", lines.joined(separator: "\n") + "\n")
        let db = tmp.file("p.db")
        XCTAssertEqual(try Run.pushlog(["--db", db, "ingest", "--quiet", log]).status, 0)

        func page(_ week: Int64) throws -> [String: Any] {
            let r = try Run.pushlog(["--db", db, "report", "weekly", "--week", TimeFormat.isoWeek(ms: week), "--format", "json"])
            XCTAssertEqual(r.status, 0, r.stderr)
            return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        }
        func days(_ doc: [String: Any]) -> [String] {
            let sections = doc["sections"] as? [String: Any]
            return (sections?["trend_daily"] as? [[String: Any]] ?? []).compactMap { $0["day"] as? String }
        }
        func changes(_ doc: [String: Any]) -> [Any] {
            let sections = doc["sections"] as? [String: Any]
            return (sections?["kpis"] as? [[String: Any]] ?? []).map { $0["change"] ?? NSNull() }
        }
        let label = { (ms: Int64) in TimeFormat.bucket(ms: ms, by: "day") }

        // This week: partial, to the newest record; from the first record's day to today.
        let current = try page(start)
        let notes = current["notes"] as? [String] ?? []
        XCTAssertTrue(notes.contains { $0.hasPrefix("partial week, to ") }, "\(notes)")
        XCTAssertTrue(changes(current).allSatisfy { $0 is NSNull }, "a partial week's changes are left empty")
        let drawn = days(current)
        XCTAssertEqual(drawn.first, label(first))
        XCTAssertEqual(drawn.last, label(now))
        XCTAssertEqual(drawn, drawn.sorted())

        // Last week: whole, with its changes; the days before the first record are not drawn.
        let previous = try page(start - KPIPage.week)
        XCTAssertFalse((previous["notes"] as? [String] ?? []).contains { $0.hasPrefix("partial week") })
        XCTAssertFalse(changes(previous).allSatisfy { $0 is NSNull }, "a whole week's changes are there")
        XCTAssertEqual(days(previous).first, label(first))
        XCTAssertEqual(days(previous).last, label(start - day))
        XCTAssertEqual(days(previous).count, 4)  // Thursday to Sunday
    }
}
