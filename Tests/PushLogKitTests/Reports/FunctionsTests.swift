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
