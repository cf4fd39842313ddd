import Foundation
import XCTest
@testable import PushLogKit

/// Formats hand back a typed reject reason; its text (what `rejects.reason` stores) is the
/// wording users have always seen.
final class RejectReasonTests: XCTestCase {
    func outcome(_ line: String) -> ParseOutcome? {
        var s = line
        return s.withUTF8 { OutcomeSink().parse($0, number: 1, with: NDJSONFormat()) }.first
    }

    func reason(_ line: String) -> RejectReason? {
        if case .reject(let r) = outcome(line) { return r }
        return nil
    }

    func testFormatsReturnTypedReasons() {
        XCTAssertEqual(reason(#"{"time":"2026-11-02T10:00:00Z","event":"send","status":200}"#), .missingField("token"))
        XCTAssertEqual(reason(#"{"time":"2026-11-02T10:00:00Z","event":"launch","token":"ab"}"#), .unknownEventKind("launch"))
        XCTAssertEqual(reason(#"{"time":"2026-11-02T10:00:00Z","event":"send","token":"ab","status":1200}"#), .statusOutOfRange(1200))
        XCTAssertEqual(
            reason(#"{"time":"yesterday","event":"send","token":"ab","status":200}"#), .badValue(field: "time", text: "yesterday"))
        // Column 32: the quote after the space.
        XCTAssertEqual(reason(#"{"time":"2026-11-02T10:00:00Z" "event":1}"#), .expectedCommaOrBrace(column: 32))
        XCTAssertEqual(reason("plain words"), .notJSONObject)
    }

    /// The stored wording of each kind of reason, as the rejects table has always held it.
    func testDescriptionsKeepTheWording() {
        let cases: [(RejectReason, String)] = [
            (.lineTooLong, "line longer than 1 MiB"),
            (.invalidUTF8, "invalid UTF-8"),
            (.nulByte, "NUL byte in line"),
            (.trailingCharacters(column: 12), "unexpected characters after the JSON object at column 12"),
            (.unterminatedString(column: 7), "unterminated string at column 7"),
            (.unterminatedString(column: nil), "unterminated string"),
            (.badUnicodeEscape(column: 9), "bad \\u escape at column 9"),
            (.badEscape("q", column: 4), "bad escape '\\q' at column 4"),
            (.expectedColon(column: 3), "expected ':' at column 3"),
            (.csvFieldCount(row: 3, header: 5), "CSV row has 3 fields, the header has 5"),
            (.notAnInteger(field: "status", text: "abc"), "status is not an integer: abc"),
            (.badValue(field: "time", text: "soon"), "bad time: 'soon'"),
            (.outOfRange(field: "priority"), "priority out of range"),
            (.timeMismatch("12:00"), "time '12:00' does not match the format's time-format"),
            (.missingField("apns_id"), "missing required field 'apns_id'"),
            (.missingDeviceOrUser, "missing required field 'device' or 'user'"),
            (.unknownKind, "cannot tell the record kind (no 'event' field)"),
            (.statusOutOfRange(-1), "status out of range: -1"),
            (.unreadableShape("gorush entry without a [token]"), "gorush entry without a [token]"),
        ]
        for (r, text) in cases { XCTAssertEqual(r.description, text) }
    }
}
