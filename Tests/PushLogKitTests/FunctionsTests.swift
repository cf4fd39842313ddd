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
}
