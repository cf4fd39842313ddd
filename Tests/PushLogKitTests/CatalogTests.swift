import XCTest

@testable import PushLogKit

/// The catalog's headers declare what a report means: typed parameters read at load, refused
/// with the file and line when they are wrong.
final class CatalogTests: XCTestCase {
    func parse(_ text: String) throws -> ReportDefinition {
        try ReportDefinition.parse(name: "mine", text: text, origin: "/q/mine.sql")
    }

    func testTypedParametersAreRead() throws {
        let def = try parse(
            """
            -- title: Mine
            -- param: since time  start of the range
            -- param: by enum(hour,day) = day  the bucket
            -- param: budget int = 5  per hour
            -- section: summary
            SELECT :since, :by, :budget;
            """)
        XCTAssertEqual(def.params.map(\.name), ["since", "by", "budget"])
        XCTAssertEqual(def.parameter("since")?.type, .time)
        XCTAssertEqual(def.byValues, ["hour", "day"])
        XCTAssertEqual(def.paramDefaults, ["by": "day", "budget": "5"])
        XCTAssertEqual(def.parameter("by")?.help, "the bucket")
        XCTAssertNil(def.undeclaredUse)
    }

    /// Every built-in report's parameters are typed, and `by` lists the values its SQL handles.
    func testBuiltInParametersAreTyped() throws {
        let catalog = try QueryCatalog()
        XCTAssertEqual(catalog.report("gone")?.byValues?.first, "minute")
        XCTAssertEqual(catalog.report("silent")?.byValues, ["topic", "env", "app_version"])
        XCTAssertEqual(catalog.report("opt-out")?.parameter("unit")?.type, .oneOf(["device", "user"]))
        XCTAssertEqual(catalog.report("weekly")?.parameter("week")?.type, .week)
        for r in catalog.reports { XCTAssertNil(r.undeclaredUse, r.name) }
    }

    func testBadHeadersAreRefusedWithFileAndLine() {
        let cases: [(String, String)] = [
            ("-- title: X\n-- param: since tiem  start\n-- section: s\nSELECT 1;", "/q/mine.sql:2: unknown type 'tiem'"),
            ("-- title: X\n\n-- param: by enum(hour,day) = week  b\n-- section: s\nSELECT 1;", "/q/mine.sql:3: default 'week'"),
            ("-- param: budget text  n\n-- section: s\nSELECT 1;", "/q/mine.sql:1: parameter budget is a int"),
            ("-- param: by=day  bucket: hour or day\n-- section: s\nSELECT 1;", "/q/mine.sql:1: parameter by must list its values"),
            (
                "-- param: since time  a\n-- param: since time  b\n-- section: s\nSELECT 1;",
                "/q/mine.sql:2: parameter since is declared twice"
            ),
        ]
        for (text, message) in cases {
            XCTAssertThrowsError(try parse(text), text) { e in XCTAssertTrue("\(e)".contains(message), "\(e)") }
        }
    }

    /// A parameter the SQL binds but the header does not declare is found at load, with its line;
    /// names in strings, quoted names and comments are not parameters.
    func testUndeclaredParameterIsFoundAtLoad() throws {
        let def = try parse(
            """
            -- param: since time  start
            -- section: summary
            -- :not_a_param in a comment
            SELECT ':nor_this', "x:y", /* :nor */ count(*) AS n
            FROM responses WHERE time_ms >= :since
              AND time_ms < :sinec;
            """)
        let e = try XCTUnwrap(def.undeclaredUse)
        XCTAssertEqual(e.name, "sinec")
        XCTAssertEqual(e.line, 6)
        XCTAssertTrue("\(e)".contains("(/q/mine.sql:6) uses :sinec"), "\(e)")
    }

    /// The older untyped form still loads: the type is the one the option carries.
    func testUntypedParameterTakesItsOptionsType() throws {
        let def = try parse("-- param: since  start\n-- param: budget=4  n\n-- section: s\nSELECT :since, :budget;")
        XCTAssertEqual(def.parameter("since")?.type, .time)
        XCTAssertEqual(def.parameter("budget")?.type, .int)
        XCTAssertEqual(def.paramDefaults["budget"], "4")
    }

    /// A user file with an undeclared parameter stops the catalog loading, exit 2, naming file and line.
    func testUndeclaredParameterInAUserFileExitsTwo() throws {
        let tmp = TempDir()
        _ = tmp.write("mine.sql", "-- title: Mine\n-- param: since time  start\n-- section: summary\nSELECT :sinec AS n;\n")
        let r = try Run.pushlog(["--db", IngestedFixtures.reports, "reports", "--queries", tmp.path])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("mine.sql:4) uses :sinec"), r.stderr)
    }
}
