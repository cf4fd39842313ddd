import Foundation
import XCTest
@testable import PushLogKit

/// Values are typed by what they mean, not by how a format spells them: in every format a flag
/// written `false`, `0`, `"false"`, `no` or left out is not set, and a number written as a
/// string is the number.
final class TypedValueTests: XCTestCase {
    static let falses = ["false", "0", "\"false\"", "no", "FALSE", "off"]

    /// Ingests `text` as a file named `name`, returns (has_alert or 0, content_available or 0,
    /// status) of each send in line order.
    func flags(_ name: String, _ text: String) throws -> [[Int64]] {
        let tmp = TempDir(), db = tmp.file("t.db")
        let path = tmp.write(name, text)
        let s = try ingest([path], db: db)
        XCTAssertEqual(s.rejects, 0, name)
        return try rows(
            "SELECT coalesce(has_alert, 0), coalesce(content_available, 0), coalesce(status, -1) FROM sends ORDER BY line", db
        ).map { $0.map { if case .int(let i) = $0 { return i } else { return -9 } } }
    }

    func testLogfmtFlagsAndQuotedNumbers() throws {
        var lines = Self.falses.enumerated().map { i, f in
            "time=2026-11-02T08:0\(i):00Z event=send token=\(Self.token(i)) status=\"200\" alert=\(f) content_available=\(f)"
        }
        lines.append("time=2026-11-02T08:09:00Z event=send token=\(Self.token(9)) status=\"410\" reason=Unregistered")
        lines.append("time=2026-11-02T08:10:00Z event=send token=\(Self.token(10)) status=200 alert=true content_available=1")
        let got = try flags("a.logfmt", lines.joined(separator: "\n") + "\n")
        XCTAssertEqual(got, Array(repeating: [0, 0, 200], count: Self.falses.count) + [[0, 0, 410], [1, 1, 200]])
    }

    func testCSVFlagsAndQuotedNumbers() throws {
        var lines = ["time,event,token,status,alert,content_available"]
        for (i, f) in Self.falses.enumerated() {
            let v = f  // "false" is RFC 4180 quoting of false
            lines.append("2026-11-02T08:0\(i):00Z,send,\(Self.token(i)),\"200\",\(v),\(v)")
        }
        lines.append("2026-11-02T08:09:00Z,send,\(Self.token(9)),410,,")
        lines.append("2026-11-02T08:10:00Z,send,\(Self.token(10)),200,yes,true")
        let got = try flags("a.csv", lines.joined(separator: "\n") + "\n")
        XCTAssertEqual(got, Array(repeating: [0, 0, 200], count: Self.falses.count) + [[0, 0, 410], [1, 1, 200]])
    }

    func testJSONFlagsAsBooleansNumbersAndStrings() throws {
        let values = ["false", "0", "\"false\"", "\"no\"", "\"0\"", "null"]
        var lines = values.enumerated().map { i, f in
            "{\"time\":\"2026-11-02T08:0\(i):00Z\",\"event\":\"send\",\"token\":\"\(Self.token(i))\",\"status\":\"200\",\"alert\":\(f),\"content_available\":\(f)}"
        }
        lines.append("{\"time\":\"2026-11-02T08:09:00Z\",\"event\":\"send\",\"token\":\"\(Self.token(9))\",\"status\":410}")
        lines.append(
            "{\"time\":\"2026-11-02T08:10:00Z\",\"event\":\"send\",\"token\":\"\(Self.token(10))\",\"status\":200,\"alert\":\"Hello\",\"content_available\":true}"
        )
        let text = lines.joined(separator: "\n") + "\n"
        let want = Array(repeating: [Int64(0), 0, 200], count: values.count) + [[0, 0, 410], [1, 1, 200]]
        XCTAssertEqual(try flags("a.ndjson", text), want)
        // The same records as one JSON array (the document reader).
        XCTAssertEqual(try flags("a.json", "[\n" + lines.joined(separator: ",\n") + "\n]\n"), want)
    }
}
