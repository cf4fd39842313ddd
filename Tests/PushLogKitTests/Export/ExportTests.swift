import Foundation
import XCTest
@testable import PushLogKit

/// `pushlog export`: rows as ClickHouse reads them, the identity that dedupes, day partitions,
/// exports of a database, and the command's errors. Fixture: Tests/Fixtures/export.ndjson (a 410
/// send with an uppercase hex token, a split request/response, a registration logged twice (two
/// identical lines of one file: two events), a line
/// that is not a record, a transport error with a quote and a tab in its text, over two days).
final class ExportTests: XCTestCase {
    let fixture = Fixtures.path("export.ndjson")

    /// The rows, in the order `export` writes them (one table after another), as JSON objects.
    func jsonRows(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
    }

    func testRowsCarryEveryFieldInFullAndNoNulls() throws {
        let r = try Run.pushlog(["export", "--quiet", fixture])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 6, "send, request, response, transport error, two registrations (identical lines, two events)")
        // The 410: the token in full, lower-cased as pushlog stores hex tokens; the nested response
        // gives status, reason and the APNs timestamp; category from the taxonomy; fields the
        // record lacks are left out (ClickHouse fills NULL). 2026-11-02T23:59:59.5Z = 1793663999500.
        let hash = try XCTUnwrap(lines[0].range(of: #""line_hash":"[0-9a-f]{16}""#, options: .regularExpression))
        XCTAssertEqual(
            lines[0].replacingCharacters(in: hash, with: #""line_hash":"H""#),
            #"{"kind":"send","time_ms":1793663999500,"line_hash":"H","source":"\#(fixture)","line":1,"#
                + #""token":"abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789","token_malformed":0,"token_masked":0,"#
                + #""apns_id":"ex-1","env":"production","topic":"com.example.app","push_type":"alert","priority":10,"#
                + #""status":410,"reason":"Unregistered","category":"token-gone","apns_timestamp":1793663000000}"#)
        let rows = try jsonRows(r.stdout)
        // The split response is exported as logged: no token (ClickHouse's pushlog.sends joins it).
        let response = try XCTUnwrap(rows.first { $0["kind"] as? String == "response" })
        XCTAssertNil(response["token"])
        XCTAssertEqual(response["apns_id"] as? String, "ex-2")
        XCTAssertEqual(response["time_ms"] as? Int, 1_793_664_001_250)
        // JSON escapes the quote and the tab of the transport error; the broken token is flagged.
        XCTAssertTrue(lines.contains { $0.contains(#""error":"read: \"reset\"\tby peer""#) })
        let transport = try XCTUnwrap(rows.first { $0["error"] != nil })
        XCTAssertEqual(transport["token"] as? String, "{length = 32, bytes = 0x0123}")
        XCTAssertEqual(transport["token_malformed"] as? Int, 1)
        XCTAssertNil(transport["status"])
        let register = try XCTUnwrap(rows.first { $0["kind"] as? String == "register" })
        XCTAssertEqual(register["device"] as? String, "dev-9")
        XCTAssertEqual(register["app_version"] as? String, "2.0")
        XCTAssertEqual(register["auth"] as? String, "authorized")
        // The rejected line is named on stderr, with the count.
        XCTAssertTrue(r.stderr.contains("export.ndjson:6: rejected: not a JSON object"), r.stderr)
        XCTAssertTrue(r.stderr.contains("0 duplicates, 1 rejected lines"), r.stderr)
    }

    /// The identity ClickHouse dedupes on is pushlog's own: time and the line hash of the stored row.
    func testIdentityIsTheStoredLineHash() throws {
        let tmp = TempDir()
        let db = tmp.file("p.db")
        _ = try ingest([fixture], db: db)
        let stored = try Store.openForReading(path: db)
        let s = try stored.prepare("SELECT time_ms, printf('%016x', line_hash) FROM sends_v WHERE apns_id = 'ex-1'")
        XCTAssertTrue(try s.step())
        let rows = try jsonRows(try Run.pushlog(["export", "--quiet", fixture]).stdout)
        let send = try XCTUnwrap(rows.first { $0["apns_id"] as? String == "ex-1" })
        XCTAssertEqual(send["time_ms"] as? Int, Int(s.int(0)))
        XCTAssertEqual(send["line_hash"] as? String, s.string(1))
        // The same lines again (another copy of the file) give the same identities.
        let copy = tmp.write("copy.ndjson", try String(contentsOfFile: fixture, encoding: .utf8))
        let again = try jsonRows(try Run.pushlog(["export", "--quiet", copy]).stdout)
        XCTAssertEqual(
            Set(again.map { "\($0["time_ms"]!)/\($0["line_hash"]!)" }), Set(rows.map { "\($0["time_ms"]!)/\($0["line_hash"]!)" }))
    }

    func testTSVHasAHeaderNullsAndEscapes() throws {
        let r = try Run.pushlog(["export", "--quiet", "--format", "TSVWithNames", fixture])
        XCTAssertEqual(r.status, 0, r.stderr)
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertEqual(lines.first, RecordDump.columns.joined(separator: "\t"))
        XCTAssertEqual(lines.last, "", "every row ends in \\n")
        XCTAssertEqual(lines.count, 1 + 6 + 1)
        let error = RecordDump.columns.firstIndex(of: "error")!, status = RecordDump.columns.firstIndex(of: "status")!
        let transport = try XCTUnwrap(lines.first { $0.contains("read: ") }).components(separatedBy: "\t")
        XCTAssertEqual(transport.count, RecordDump.columns.count, "the tab inside the value is escaped, not a column break")
        XCTAssertEqual(transport[error], #"read: "reset"\tby peer"#)
        XCTAssertEqual(transport[status], #"\N"#)
    }

    func testDayPartitionsNeverOverwriteAPart() throws {
        let tmp = TempDir()
        let out = tmp.file("parts")
        XCTAssertEqual(try Run.pushlog(["export", "--quiet", "--to", out, fixture]).status, 0)
        XCTAssertEqual(try Run.pushlog(["export", "--quiet", "--to", out, fixture]).status, 0)
        let files = try XCTUnwrap(FileManager.default.subpathsOfDirectory(atPath: out)).filter { $0.hasSuffix(".gz") }.sorted()
        XCTAssertEqual(
            files,
            [
                "day=2026-11-02/part-0001.ndjson.gz", "day=2026-11-02/part-0002.ndjson.gz",
                "day=2026-11-03/part-0001.ndjson.gz", "day=2026-11-03/part-0002.ndjson.gz",
            ])
        // 2026-11-02 holds the 410 only (23:59:59.5); 2026-11-03 the other five, in time order.
        XCTAssertEqual(try gunzipLines(out + "/" + files[0]).count, 1)
        let day2 = try gunzipLines(out + "/" + files[2]).map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        XCTAssertEqual(day2.map { $0["kind"] as! String }, ["request", "response", "register", "register", "send"])
    }

    func testFromDatabaseWithARange() throws {
        let tmp = TempDir()
        let db = tmp.file("p.db")
        _ = try ingest([fixture], db: db)
        // [2026-11-03T00:00:01.250Z, 2026-11-03T09:00:00Z): the response and the two registrations.
        let r = try Run.pushlog([
            "--db", db, "export", "--from-db", "--quiet", "--since", "1793664001250", "--until", "2026-11-03T09:00:00Z",
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        let rows = try jsonRows(r.stdout)
        XCTAssertEqual(rows.map { $0["kind"] as! String }.sorted(), ["register", "register", "response"])
    }

    func testUsageAndRuntimeErrors() throws {
        let none = try Run.pushlog(["export"])
        XCTAssertEqual(none.status, 2)
        XCTAssertTrue(none.stderr.contains("export needs a PATH or --from-db"), none.stderr)
        let format = try Run.pushlog(["export", "--format", "parquet", fixture])
        XCTAssertEqual(format.status, 2)
        XCTAssertTrue(format.stderr.contains("unknown export --format 'parquet'"), format.stderr)
        let stray = try Run.pushlog(["export", "--from-db", fixture])
        XCTAssertEqual(stray.status, 2, "--from-db takes no PATH")
        let missing = try Run.pushlog(["export", "/nonexistent/logs.ndjson"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("no such file"), missing.stderr)
        // A damaged gzip: the records before the damage are exported, and the exit status is 1.
        let truncated = try Run.pushlog(["export", "--quiet", Fixtures.path("truncated.ndjson.gz")])
        XCTAssertEqual(truncated.status, 1)
        XCTAssertFalse(truncated.stdout.isEmpty)
    }

    /// The benchmark's parse-only pass reads every line as ingest does and writes nothing.
    func testParseOnlyCountsLinesAndRecords() throws {
        let r = try Run.pushlog(["export", "--parse-only", fixture])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "")
        // Seven lines: six records (the two identical registrations are two events), one is rejected.
        XCTAssertTrue(r.stderr.hasPrefix("parse only: 7 lines (6 records) in "), r.stderr)
    }

    func gunzipLines(_ path: String) throws -> [String] {
        var out: [String] = []
        let reader = LineReader(source: try GzipByteSource(input: try FileByteSource(path: path)))
        try reader.forEachLine { line in out.append(String(decoding: line.bytes, as: UTF8.self)) }
        return out.filter { !$0.isEmpty }
    }
}
