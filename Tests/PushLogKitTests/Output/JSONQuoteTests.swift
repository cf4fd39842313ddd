import XCTest

@testable import PushLogKit

/// JSON strings as the renderer writes them: whole when nothing needs an escape, else every
/// quote, backslash and control character escaped (C0, DEL and C1: a CSI would act on a terminal
/// that shows the output).
final class JSONQuoteTests: XCTestCase {
    func testPlainTextIsWrittenWhole() {
        XCTAssertEqual(JSONRenderer.quote("2026-W45"), "\"2026-W45\"")
        XCTAssertEqual(JSONRenderer.quote("é ✓ 日本"), "\"é ✓ 日本\"")
        XCTAssertEqual(JSONRenderer.quote(""), "\"\"")
    }

    func testEscapes() {
        XCTAssertEqual(JSONRenderer.quote("a\"b\\c"), "\"a\\\"b\\\\c\"")
        XCTAssertEqual(JSONRenderer.quote("a\tb\nc\rd"), "\"a\\tb\\nc\\rd\"")
        XCTAssertEqual(JSONRenderer.quote("x\u{01}y"), "\"x\\u0001y\"")
        XCTAssertEqual(JSONRenderer.quote("x\u{7F}y"), "\"x\\u007fy\"")
        XCTAssertEqual(JSONRenderer.quote("x\u{9B}y"), "\"x\\u009by\"")
        XCTAssertEqual(JSONRenderer.quote("\u{A0}é"), "\"\u{A0}é\"", "no-break space and é start with 0xC2/0xC3 but are not controls")
    }
}
