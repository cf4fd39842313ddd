import XCTest

@testable import PushLogKit

/// The SQL functions reports call, on an in-memory database.
final class FunctionsTests: XCTestCase {
    func value(_ sql: String) throws -> SQLValue {
        let db = try Database(path: ":memory:", readOnly: false)
        try Functions.register(db)
        let s = try db.prepare(sql)
        XCTAssertTrue(try s.step())
        return s.value(0)
    }

    /// median_list gives what median() gives over the same values one by one: the silent
    /// report's median lags moved from one to the other.
    func testMedianListIsTheMedianOfEveryListedValue() throws {
        let lists = "VALUES ('1,-3,5'), (NULL), ('10'), ('')"
        let values = "VALUES (1), (-3), (5), (10)"
        XCTAssertEqual(try value("SELECT median_list(column1, 1000.0) FROM (\(lists))"), .double(0.003))
        XCTAssertEqual(
            try value("SELECT median_list(column1, 1000.0) FROM (\(lists))"),
            try value("SELECT median(column1 / 1000.0) FROM (\(values))"))
        XCTAssertEqual(try value("SELECT median_list(column1, 1.0) FROM (VALUES ('7,2,9'))"), .double(7))
        XCTAssertEqual(try value("SELECT median_list(column1, 1.0) FROM (VALUES (NULL), (''))"), .null)
    }

    /// pushlog_round is SQLite's round() (a report written once rounds with it, and ClickHouse's
    /// function of that name is held to round() by the ClickHouse check): the same double for
    /// values shaped as reports compute them, ties in the decimal form and in the binary one.
    func testPushlogRoundIsSQLiteRound() throws {
        let db = try Database(path: ":memory:", readOnly: false)
        try Functions.register(db)
        var rng = SystemRandomNumberGenerator()
        var values: [Double] = [0.5, 1.5, 2.5, -2.5, 2.5e-6, -2.5e-6, 0.0000015, 92.83449999999999, 130.3755, 1e300, -0.0, 4.5e15]
        for _ in 0..<3000 {
            let a = Double(Int.random(in: -1_000_000...1_000_000, using: &rng)), b = Double(Int.random(in: 1...1_000_000, using: &rng))
            values += [a / b, a / 1000 * 0.1 + b / 7000, Double.random(in: -1...1, using: &rng) * pow(10, Double(Int.random(in: -8...9)))]
        }
        let s = try db.prepare("SELECT pushlog_round(?1, ?2), round(?1, ?2)")
        for v in values {
            for n in [0, 1, 2, 3, 6] {
                s.bind(1, v)
                s.bind(2, Int64(n))
                XCTAssertTrue(try s.step())
                XCTAssertEqual(s.value(0), s.value(1), "pushlog_round(\(v), \(n))")
                s.reset()
            }
        }
        XCTAssertEqual(try value("SELECT pushlog_round(NULL, 2)"), .null)
    }

    /// A helper given what it cannot read errs naming itself and the value, never a 1970 date.
    func testTimeHelpersRefuseWhatIsNotEpochMilliseconds() throws {
        XCTAssertEqual(try value("SELECT rfc3339(1793800800000)"), .text("2026-11-04T14:00:00Z"))
        XCTAssertEqual(try value("SELECT rfc3339('1793800800000')"), .text("2026-11-04T14:00:00Z"))
        XCTAssertEqual(try value("SELECT bucket_start(1793800800000, 'day')"), .int(1_793_750_400_000))
        XCTAssertEqual(try value("SELECT rfc3339(NULL)"), .null)
        for sql in [
            "SELECT rfc3339('2026-11-10')", "SELECT rfc3339(bucket(1793800800000, 'day'))", "SELECT bucket(1793800800000, 'dya')",
            "SELECT bucket_start(1793800800000, 'days')", "SELECT iso_week('now')", "SELECT rfc3339(1.5)",
        ] {
            let db = try Database(path: ":memory:", readOnly: false)
            try Functions.register(db)
            XCTAssertThrowsError(try db.prepare(sql).step(), sql) { e in
                XCTAssertTrue("\(e)".contains("epoch milliseconds") || "\(e)".contains("unknown unit"), "\(sql): \(e)")
            }
        }
    }

    /// A user report that misspells a parameter (`:sinec`) is refused, not run with NULL.
    func testUndeclaredParameterIsAUsageError() throws {
        let tmp = TempDir()
        _ = tmp.write(
            "mine.sql",
            "-- title: Mine\n-- param: since  start\n-- section: summary\nSELECT count(*) AS n FROM responses WHERE time_ms >= :sinec;\n")
        let r = try Run.pushlog(["--db", IngestedFixtures.reports, "report", "mine", "--queries", tmp.path])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("uses :sinec, which its header does not declare (declared: since)"), r.stderr)
        XCTAssertEqual(r.stdout, "")
    }
}
