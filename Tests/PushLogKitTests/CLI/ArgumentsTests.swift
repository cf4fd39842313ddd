import XCTest
@testable import pushlog

/// The hand-written argument parser on its own.
final class ArgumentsTests: XCTestCase {
    func parse(_ a: [String]) throws -> Arguments {
        try Arguments(a, command: "report", valued: ["--since", "--format", "-o"], boolean: ["--reveal-tokens"])
    }

    func testValuesFlagsAndPositionals() throws {
        let a = try parse(["gone", "--since", "7d", "--format=json", "--reveal-tokens", "-o", "x.csv"])
        XCTAssertEqual(a.positionals, ["gone"])
        XCTAssertEqual(a.value("--since"), "7d")
        XCTAssertEqual(a.value("--format"), "json")
        XCTAssertEqual(a.value("-o"), "x.csv")
        XCTAssertTrue(a.has("--reveal-tokens"))
        // The last of a repeated option wins for value(); all() keeps each.
        // A single-valued option given twice is refused (it would quietly take the last);
        // --fail-if adds conditions.
        XCTAssertThrowsError(try parse(["--since", "1d", "--since", "2d"]))
        XCTAssertEqual(try parse(["--since", "1d", "--since", "1d"]).value("--since"), "1d")
        // `-` is stdin, `--` ends the options, text with spaces is SQL, not a flag.
        XCTAssertEqual(try parse(["-", "--", "--since"]).positionals, ["-", "--since"])
        XCTAssertEqual(try parse(["-- comment\nSELECT 1"]).positionals, ["-- comment\nSELECT 1"])
    }

    func testErrorsNameTheArgumentAndSuggestTheFix() throws {
        XCTAssertThrowsError(try parse(["--sinse", "7d"])) { e in
            let u = e as! UsageError
            XCTAssertTrue(u.message.contains("--sinse") && u.hint.contains("did you mean --since?"), "\(u)")
        }
        XCTAssertThrowsError(try parse(["--since"])) { e in
            XCTAssertTrue((e as! UsageError).message.contains("--since needs a value"))
        }
        XCTAssertThrowsError(try parse(["gone", "yesterday"]).allowPositionals(1, command: "report gone", timeOption: "--since")) { e in
            XCTAssertTrue((e as! UsageError).hint.contains("did you mean `--since yesterday`?"))
        }
        XCTAssertThrowsError(try parse(["gone", "extra"]).allowPositionals(1, command: "report gone", timeOption: "--since")) { e in
            XCTAssertEqual((e as! UsageError).message, "unexpected argument 'extra' for 'report gone'")
        }
        XCTAssertEqual(Arguments.closest("gnoe", ["gone", "churn"]), "gone")
        XCTAssertNil(Arguments.closest("zzzzzz", ["gone", "churn"]))
    }

    func testWatchSeconds() throws {
        XCTAssertEqual(try Watch.extract(["gone", "--watch"]).0, 2)
        XCTAssertEqual(try Watch.extract(["gone", "--watch", "5", "--since", "1d"]).0, 5)
        XCTAssertEqual(try Watch.extract(["gone", "--watch", "5", "--since", "1d"]).1, ["gone", "--since", "1d"])
        XCTAssertEqual(try Watch.extract(["gone", "--watch=0.5"]).0, 0.5)
        XCTAssertThrowsError(try Watch.extract(["gone", "--watch=x"]))
    }
}
