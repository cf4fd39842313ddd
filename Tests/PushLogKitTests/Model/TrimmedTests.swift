import Foundation
import XCTest
@testable import PushLogKit

/// The report files are parsed with a native trim: it must cut what Foundation's trims cut.
final class TrimmedTests: XCTestCase {
    func testTrimsAsFoundationDoes() {
        let samples = [
            "", " ", "\t", "abc", "  abc  ", "\tab c\t", " \n ab \n ", "\nab", "ab\r\n", "\u{00A0}ab\u{2003}", " -- section: x ",
            "\n", " \t\n\t ", "é ", " 日本 ",
        ]
        for s in samples {
            XCTAssertEqual(s.trimmed(), s.trimmingCharacters(in: .whitespaces), "\(s.debugDescription)")
            XCTAssertEqual(s.trimmed(newlines: true), s.trimmingCharacters(in: .whitespacesAndNewlines), "\(s.debugDescription)")
            XCTAssertEqual(s.dropFirst(0).trimmed(), s.trimmingCharacters(in: .whitespaces), "a Substring: \(s.debugDescription)")
        }
    }
}
