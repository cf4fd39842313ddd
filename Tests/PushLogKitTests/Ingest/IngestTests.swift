import Foundation
import XCTest
@testable import PushLogKit

final class IngestTests: XCTestCase {
    func testCanonicalKindsAndReingestAddsNothing() throws {
        let tmp = TempDir()
        let db = tmp.file("p.db")
        let s = try ingest([Fixtures.path("canonical.ndjson")], db: db)
        XCTAssertEqual(kinds(s), ["register": 1, "send": 1, "request": 1, "response": 1, "settings": 1, "receipt": 1, "unregister": 1])
        XCTAssertEqual(s.rejects, 0)
        XCTAssertFalse(s.failed)
        // Unchanged file: skipped by fingerprint.
        let again = try ingest([Fixtures.path("canonical.ndjson")], db: db)
        XCTAssertEqual(again.totalRecords, 0)
        XCTAssertTrue(again.files[0].unchanged)
        // A gzipped copy elsewhere: read, but every line is a duplicate.
        let gz = tmp.file("copy.ndjson.gz")
        try gzipFile(Fixtures.path("canonical.ndjson"), to: gz)
        let copy = try ingest([gz], db: db)
        XCTAssertEqual(copy.totalRecords, 0)
        XCTAssertEqual(copy.duplicates, 7)
        // The split request/response pair is joined by apns_id.
        XCTAssertEqual(
            try count("SELECT count(*) FROM sends_v WHERE kind = 2 AND token_id IS NOT NULL AND push_type = 'background'", db: db), 1)
        // Alert text is never stored; only the payload shape.
        XCTAssertEqual(
            try count(
                "SELECT count(*) FROM sends_v WHERE has_alert = 1 AND has_sound = 1 AND has_badge = 1 AND custom_keys = 'deal'", db: db), 1)
        let dump = try String(contentsOfFile: db, encoding: .isoLatin1)
        XCTAssertFalse(dump.contains("secret alert text"))
    }

    func testAliases() throws {
        let tmp = TempDir()
        let db = tmp.file("p.db")
        let s = try ingest([Fixtures.path("aliases.ndjson")], db: db)
        XCTAssertEqual(kinds(s), ["send": 4])
        XCTAssertEqual(s.rejects, 0)
        let r = try Store.openForReading(path: db)
        let q = try r.prepare(
            "SELECT apns_id, status, reason, category, env, apns_ts, push_type, priority, topic, collapse_id, apns_unique_id FROM sends_v ORDER BY time_ms"
        )
        var rows: [[SQLValue]] = []
        while try q.step() { rows.append((0..<11).map { q.value($0) }) }
        XCTAssertEqual(
            rows[0],
            [
                .text("a1"), .int(200), .null, .text("accepted"), .text("sandbox"), .null, .text("alert"), .int(10),
                .text("com.example.app"), .text("c1"), .text("u1"),
            ])
        XCTAssertEqual(rows[1][0...5], [.text("a2"), .int(410), .text("Unregistered"), .text("token-gone"), .null, .int(1762074000000)])
        XCTAssertEqual(rows[2][0...4], [.text("a3"), .int(400), .text("BadDeviceToken"), .text("token-bad"), .text("production")])
        // A top-level `timestamp` beside a time on a 410 is APNs' timestamp.
        XCTAssertEqual(rows[3][0...5], [.text("a4"), .int(410), .text("ExpiredToken"), .text("token-gone"), .null, .int(1762074100000)])
        // Upper-case hex tokens are folded: one token for all four sends.
        XCTAssertEqual(try count("SELECT count(*) FROM tokens", db: db), 1)
        XCTAssertEqual(try count("SELECT count(*) FROM tokens WHERE token = lower(token) AND malformed = 0", db: db), 1)
    }

    func testEveryTimeForm() throws {
        let tmp = TempDir()
        let db = tmp.file("p.db")
        let s = try ingest([Fixtures.path("times.ndjson")], db: db)
        XCTAssertEqual(s.rejects, 0)
        let expected = try String(contentsOfFile: Fixtures.path("times.expected"), encoding: .utf8).split(separator: "\n").map {
            Int64($0)!
        }
        let r = try Store.openForReading(path: db)
        let q = try r.prepare("SELECT time_ms FROM registers_v ORDER BY CAST(substr(device, 2) AS INTEGER)")
        var got: [Int64] = []
        while try q.step() { got.append(q.int(0)) }
        XCTAssertEqual(got, expected)
    }

    func testMultiMemberGzipAndCRLF() throws {
        let tmp = TempDir()
        let db = tmp.file("p.db")
        let s = try ingest([Fixtures.path("multi-member.ndjson.gz"), Fixtures.path("crlf.ndjson")], db: db)
        XCTAssertEqual(s.files[0].records[.send], 6)
        XCTAssertTrue(s.files[0].complete)
        // The CRLF file repeats the first two lines: CR is not part of the line, so both are duplicates.
        XCTAssertEqual(s.files[1].duplicates, 2)
        XCTAssertEqual(s.files[1].totalRecords, 0)
    }

    func testTruncatedGzipKeepsRecordsBeforeTheCut() throws {
        let tmp = TempDir()
        let db = tmp.file("p.db")
        let s = try ingest([Fixtures.path("truncated.ndjson.gz"), Fixtures.path("canonical.ndjson")], db: db)
        let f = s.files[0]
        XCTAssertFalse(f.complete)
        XCTAssertNotNil(f.error)
        XCTAssertTrue(s.failed)
        XCTAssertGreaterThan(f.records[.send], 50)
        XCTAssertLessThan(f.records[.send], 300)
        // Every kept record is one of the first lines, in order: no gaps.
        XCTAssertEqual(try count("SELECT max(line) - count(*) FROM sends_v WHERE source_id = 1", db: db), 0)
        // The other file still went in.
        XCTAssertEqual(s.files[1].totalRecords, 7)
        XCTAssertEqual(try count("SELECT complete FROM sources WHERE path LIKE '%truncated%'", db: db), 0)
    }

    func testBadLinesBecomeRejectsWithReasons() throws {
        let tmp = TempDir()
        let db = tmp.file("p.db")
        let s = try ingest([Fixtures.path("bad-lines.ndjson")], db: db)
        XCTAssertEqual(s.totalRecords, 2)
        XCTAssertEqual(s.rejects, 6)
        let r = try Store.openForReading(path: db)
        let q = try r.prepare("SELECT line, reason, text FROM rejects ORDER BY line")
        var got: [(Int64, String, String)] = []
        while try q.step() { got.append((q.int(0), q.string(1)!, q.string(2)!)) }
        XCTAssertEqual(got.map { $0.0 }, [2, 5, 6, 7, 8, 9])
        XCTAssertEqual(got[0].1, "invalid UTF-8")
        XCTAssertEqual(got[1].1, "missing required field 'token'")
        XCTAssertFalse(got[1].2.contains("eyJ"), "JWT must be redacted: \(got[1].2)")
        XCTAssertTrue(got[2].1.hasPrefix("bad time"))
        XCTAssertTrue(got[3].1.hasPrefix("unknown event kind"))
        XCTAssertTrue(got[4].1.hasPrefix("status is not an integer"))
        XCTAssertTrue(got[5].1.contains("end of line"))
    }

    /// Junk repeated many times is counted exactly, but only the first rejects of each reason keep
    /// their text, in the first run and in a run that reads on: the database stays small.
    func testRejectTextIsBoundedAndTheCountExact() throws {
        let tmp = TempDir()
        let db = tmp.file("p.db")
        let good = "{\"time\":\"2026-11-02T10:00:00Z\",\"event\":\"send\",\"token\":\"ab\",\"status\":200}\n"
        let noToken = "{\"time\":\"2026-11-02T10:00:00Z\",\"event\":\"send\",\"status\":200}\n"
        let junk = String(repeating: "this is not a record\n", count: 30_000) + String(repeating: noToken, count: 1_500)
        let p = tmp.write("junk.ndjson", good + junk)
        let s = try ingest([p], db: db)
        XCTAssertEqual(s.totalRecords, 1)
        XCTAssertEqual(s.rejects, 31_500)
        XCTAssertEqual(try count("SELECT rejects FROM sources", db: db), 31_500)
        XCTAssertEqual(try count("SELECT count(*) FROM rejects", db: db), 2_000)
        XCTAssertEqual(try count("SELECT count(DISTINCT reason) FROM rejects", db: db), 2)
        XCTAssertEqual(try count("SELECT max(line) FROM rejects WHERE reason LIKE '%token%'", db: db), 1 + 30_000 + 1_000)
        // Read on: the stored ones are known, so no more of either reason are kept.
        let h = FileHandle(forWritingAtPath: p)!
        h.seekToEndOfFile()
        h.write(Data((String(repeating: noToken, count: 10) + "more junk\n").utf8))
        try h.close()
        XCTAssertEqual(try ingest([p], db: db).rejects, 11)
        XCTAssertEqual(try count("SELECT rejects FROM sources", db: db), 31_511)
        XCTAssertEqual(try count("SELECT count(*) FROM rejects", db: db), 2_000)
        let listed = try Run.pushlog(["--db", db, "rejects", "--limit", "0", "--format", "tsv"])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertTrue(listed.stderr.contains("29511 more rejected lines were counted but not stored"), listed.stderr)
        let size = (try FileManager.default.attributesOfItem(atPath: db)[.size] as? Int) ?? 0
        XCTAssertLessThan(size, 4 << 20)
    }

    func testOversizedLineIsRejectedAndTheRestKept() throws {
        let tmp = TempDir()
        var bytes = Array("{\"time\":\"2026-11-02T10:00:00Z\",\"event\":\"send\",\"token\":\"ab\",\"status\":200,\"pad\":\"".utf8)
        bytes += [UInt8](repeating: 0x61, count: 2 << 20)
        bytes += Array("\"}\n{\"time\":\"2026-11-02T10:00:01Z\",\"event\":\"send\",\"token\":\"ab\",\"status\":200}\n".utf8)
        let p = tmp.write("big.ndjson", bytes: bytes)
        let s = try ingest([p], db: tmp.file("p.db"))
        XCTAssertEqual(s.totalRecords, 1)
        XCTAssertEqual(s.rejects, 1)
        XCTAssertEqual(try count("SELECT line FROM rejects WHERE reason LIKE '%1 MiB%'", db: tmp.file("p.db")), 1)
        XCTAssertEqual(try count("SELECT line FROM sends_v", db: tmp.file("p.db")), 2)
    }

    func testGrownFileIsReadFromWhereItStopped() throws {
        let tmp = TempDir()
        let db = tmp.file("p.db")
        let first = (0..<3).map { "{\"time\":\"2026-11-02T10:00:0\($0)Z\",\"event\":\"send\",\"token\":\"ab\",\"status\":200}" }
        let p = tmp.write("grow.ndjson", first.joined(separator: "\n") + "\n")
        XCTAssertEqual(try ingest([p], db: db).totalRecords, 3)
        let more = (3..<5).map { "{\"time\":\"2026-11-02T10:00:0\($0)Z\",\"event\":\"send\",\"token\":\"ab\",\"status\":200}" }
        let h = FileHandle(forWritingAtPath: p)!
        h.seekToEndOfFile()
        h.write((more.joined(separator: "\n") + "\n").data(using: .utf8)!)
        try h.close()
        let s = try ingest([p], db: db)
        XCTAssertEqual(s.totalRecords, 2)
        XCTAssertEqual(s.duplicates, 0, "only the new lines are read")
        XCTAssertEqual(s.files[0].resumedAfterLine, 3)
        XCTAssertEqual(try count("SELECT count(*) FROM sends", db: db), 5)
        XCTAssertEqual(try count("SELECT max(line) FROM sends_v", db: db), 5)
    }

    func testOutdatedIndexDefinitionIsRebuilt() throws {
        let tmp = TempDir()
        let db = tmp.file("p.db")
        _ = try ingest([Fixtures.path("canonical.ndjson")], db: db)
        // An older pushlog's narrower index under the same name.
        let w = try Store.openForWriting(path: db)
        try w.exec("DROP INDEX registers_device; CREATE INDEX registers_device ON registers(device_id, time_ms)")
        _ = try ingest([Fixtures.path("canonical.ndjson")], db: db)
        let sql = try w.prepare("SELECT sql FROM sqlite_master WHERE name = 'registers_device'")
        XCTAssertTrue(try sql.step())
        XCTAssertEqual(sql.string(0), "CREATE INDEX registers_device ON registers(device_id, time_ms, token_id, auth_id, user_id)")
    }

    func testDatabaseIsCreated0600() throws {
        let tmp = TempDir()
        let db = tmp.file("p.db")
        _ = try ingest([Fixtures.path("canonical.ndjson")], db: db)
        let attrs = try FileManager.default.attributesOfItem(atPath: db)
        XCTAssertEqual((attrs[.posixPermissions] as? NSNumber)?.intValue, 0o600)
    }

    func testFuzzFoundInputs() throws {
        // Each input a fuzzer crashed on (scripts/fuzz.sh) stays here as a fixture.
        let shortDate = try Data(contentsOf: Fixtures.dir.appendingPathComponent("fuzz-time-short-date.bin"))
        XCTAssertNil(shortDate.withUnsafeBytes { TimeParser.parse($0.bindMemory(to: UInt8.self)) })  // "2026-12" read past its end
        XCTAssertNil(TimeParser.parse("2026-1"))
        XCTAssertNil(TimeParser.parse("2026-11-0"))
        // A relative duration too large to subtract trapped on the Int64 conversion.
        XCTAssertNil(TimeArgument.parse("1e300h"))
        XCTAssertNil(TimeArgument.parse("99999999999999w"))
        XCTAssertNil(TimeArgument.parse("+2202021381380-w03"))  // an ISO week in an absurd year
        XCTAssertEqual(TimeArgument.parse("2026-W45"), TimeParser.parse("2026-11-02"))
        // A high surrogate followed by another high surrogate underflowed in the tree parser (SNS, gorush).
        XCTAssertEqual(JSONValue.parse("{\"u\":\"\\udaaa\\udaaa\"}")?["u"]?.string?.unicodeScalars.count, 2)
        for (file, format) in [("fuzz-sns-surrogate.bin", "sns"), ("fuzz-gorush-surrogate.bin", "gorush")] {
            let tmp = TempDir()
            let s = try ingest([Fixtures.path(file)], db: tmp.file("p.db"), format: format)
            XCTAssertEqual(s.totalRecords + s.rejects + s.ignored + s.skipped > 0, true, file)
        }
    }
}

/// gzip-compresses a file with zlib through the CZlib target (a real gzip stream).
func gzipFile(_ src: String, to dst: String) throws {
    let data = try Data(contentsOf: URL(fileURLWithPath: src))
    let gz = try GzipWriter.compress(Array(data))
    _ = FileManager.default.createFile(atPath: dst, contents: Data(gz))
}

final class TokenCacheTests: XCTestCase {
    /// Memory stays bounded: old entries go, entries in use stay (promoted from the old generation).
    func testBoundedAndKeepsWhatIsUsed() {
        var c = TokenCache()
        let n = TokenCache.generation * 3
        let hot = TokenCache.Key(a: -1, b: -1)
        c.put(hot, 42)
        for i in 0..<n {
            c.put(TokenCache.Key(a: Int64(i), b: 7), Int64(i))
            if i % 1000 == 0 { XCTAssertEqual(c.get(hot), 42) }
        }
        XCTAssertEqual(c.get(hot), 42)
        XCTAssertNil(c.get(TokenCache.Key(a: 0, b: 7)))  // evicted: the writer looks it up in the tokens table
        XCTAssertEqual(c.get(TokenCache.Key(a: Int64(n - 1), b: 7)), Int64(n - 1))
        XCTAssertLessThanOrEqual(c.count, 2 * TokenCache.generation)
    }
}
