import XCTest

@testable import PushLogKit

/// A table narrowed to a terminal: text is cut, but never so far that two values read alike, and
/// a token column is never cut, whatever its cells look like.
final class TableFitTests: XCTestCase {
    func testTwoValuesSharingAPrefixStayApart() {
        XCTAssertEqual(TableFit.distinctWidth(["background_with_alert", "background_priority_10", "missing_push_type"]), 13)
        XCTAssertEqual(TableFit.distinctWidth(["a", "a", "b"]), 2)
        XCTAssertEqual(TableFit.distinctWidth(["only"]), 0)
    }

    func testNarrowingKeepsRulesApartAndTokensWhole() {
        let malformed = "<2256024f 6ab8 length 31>"
        var t = ResultTable(name: "rules", columns: ["rule", "token", "advice"])
        t.rows = [
            [.text("background_with_alert"), .text("c0a2cb46…2b1e"), .text(String(repeating: "send background pushes ", count: 4))],
            [.text("background_priority_10"), .text(malformed), .text(String(repeating: "send with priority 5 ", count: 4))],
        ]
        let out = TableRenderer.renderTable(t, width: 60)
        let lines = out.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.allSatisfy { $0.count <= 60 }, out)
        XCTAssertTrue(out.contains("c0a2cb46…2b1e"), out)
        XCTAssertTrue(out.contains(malformed), out)
        XCTAssertTrue(out.contains("background_w") && out.contains("background_p"), out)
    }
}
