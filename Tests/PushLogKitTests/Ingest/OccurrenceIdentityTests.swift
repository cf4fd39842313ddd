import Foundation
import XCTest
@testable import PushLogKit

/// Record identity by occurrence: identical lines within one file are separate records, a
/// re-delivered, rotated or gzipped copy adds nothing, a grown file resumed mid-burst keeps
/// counting, and rejects follow the same rule across files.
final class OccurrenceIdentityTests: XCTestCase {
    /// gorush's text mode with 1-second times and no apns-id: three failed sends to one token in
    /// one second are three identical lines.
    static func burst(_ n: Int, second: Int = 2) -> String {
        String(
            repeating:
                "time=\"2026/11/02 - 08:00:0\(second)\" level=error msg=\"| failed-push | ios [\(token(90))] | Hello | Error Message: Unregistered\"\n",
            count: n)
    }
    static let head = "time=\"2026/11/02 - 08:00:01\" level=info msg=\"| succeeded-push | ios [\(token(91))] Hello\"\n"

    func testIdenticalLinesOfOneFileAreEachARecordAndACopyAddsNone() throws {
        let tmp = TempDir(), db = tmp.file("o.db")
        let text = Self.head + Self.burst(3)
        let p = tmp.write("gorush.log", text)
        let s = try ingest([p], db: db)
        XCTAssertEqual(s.totalRecords, 4)
        XCTAssertEqual(s.duplicates, 0)
        XCTAssertEqual(try count("SELECT count(*) FROM sends WHERE status = 410", db: db), 3)
        // A re-delivered copy, a rotated name and a gzipped copy hold the same lines in the same order.
        let copy = tmp.write("gorush.log.1", text)
        let gz = tmp.file("gorush.log.2.gz")
        try Data(try GzipWriter.compress(Array(text.utf8))).write(to: URL(fileURLWithPath: gz))
        let again = try ingest([copy, gz], db: db)
        XCTAssertEqual(again.totalRecords, 0)
        XCTAssertEqual(again.duplicates, 8)
        XCTAssertEqual(try count("SELECT count(*) FROM sends", db: db), 4)
        // An excerpt holding two of the three (grep) adds none either.
        XCTAssertEqual(try ingest([tmp.write("excerpt.log", Self.burst(2))], db: db).totalRecords, 0)
    }

    func testAGrownFileResumedInsideABurstKeepsCounting() throws {
        // A plain file appended to, and a gzip file that grows by a member (as `cat a.gz b.gz`).
        for gzipped in [false, true] {
            let tmp = TempDir(), db = tmp.file("g.db")
            let p = tmp.file(gzipped ? "g.log.gz" : "g.log")
            func append(_ s: String) throws {
                let bytes = gzipped ? try GzipWriter.compress(Array(s.utf8)) : Array(s.utf8)
                if !FileManager.default.fileExists(atPath: p) { _ = FileManager.default.createFile(atPath: p, contents: nil) }
                let h = try FileHandle(forWritingTo: URL(fileURLWithPath: p))
                h.seekToEndOfFile()
                h.write(Data(bytes))
                try h.close()
            }
            try append(Self.head + Self.burst(2))
            XCTAssertEqual(try ingest([p], db: db).totalRecords, 3)
            // The file grows by a third identical line and one of the next second.
            try append(Self.burst(1) + Self.burst(1, second: 3))
            let s = try ingest([p], db: db)
            XCTAssertEqual(s.files[0].resumedAfterLine, 3, "gzipped: \(gzipped)")
            XCTAssertEqual(s.totalRecords, 2, "gzipped: \(gzipped)")
            XCTAssertEqual(s.duplicates, 0, "gzipped: \(gzipped)")
            XCTAssertEqual(try count("SELECT count(*) FROM sends WHERE status = 410", db: db), 4)
        }
    }

    func testTheFirstOccurrenceKeepsTheIdentityEarlierVersionsStored() throws {
        // Databases written before occurrences were counted hold the plain line hash.
        let line = "{\"time\":\"2026-11-02T08:00:00Z\",\"event\":\"send\",\"token\":\"\(Self.token(92))\",\"status\":200}"
        let counter = OccurrenceCounter()
        let h = Array(line.utf8).withUnsafeBufferPointer { LineHash.hash($0) }
        let first = counter.number(h, time: 1, line: 1, offset: 10), second = counter.number(h, time: 1, line: 2, offset: 20)
        XCTAssertTrue(OccurrenceCounter.identity(h, occurrence: first) == h)
        XCTAssertFalse(OccurrenceCounter.identity(h, occurrence: second) == h)
        // Far apart (outside the window) identical records are taken as one again.
        let far = OccurrenceCounter.windowLines + 3
        XCTAssertEqual(counter.number(h, time: 1, line: far, offset: 30), 0)
    }

    static func send(_ n: Int) -> String {
        "{\"time\":\"2026-11-02T08:00:0\(n)Z\",\"event\":\"send\",\"token\":\"\(token(93))\",\"status\":200}\n"
    }

    func testTheSameJunkAtTheSameLineOfTwoFilesIsTwoRejectsAndACopyAddsNone() throws {
        let tmp = TempDir(), db = tmp.file("r.db")
        let a = tmp.write("a.ndjson", Self.send(1) + "{not json\n")
        let b = tmp.write("b.ndjson", Self.send(2) + "{not json\n")
        let s = try ingest([a, b], db: db)
        XCTAssertEqual(s.files.map(\.rejects), [1, 1])
        let copy = tmp.write("a-copy.ndjson", Self.send(1) + "{not json\n")
        let gz = tmp.file("b.ndjson.gz")
        try gzipFile(b, to: gz)
        XCTAssertEqual(try ingest([copy, gz], db: db).rejects, 0)
        XCTAssertEqual(try count("SELECT count(*) FROM rejects", db: db), 2)
    }

    func testRejectsStoredBeforeFileContextStillDedupe() throws {
        let tmp = TempDir(), db = tmp.file("l.db")
        let junk = "{not json"
        let p = tmp.write("old.ndjson", Self.send(1) + junk + "\n")
        // The reject as an earlier version stored it: its bytes and line number only.
        let legacy = RejectIdentity.hash(Array(junk.utf8).withUnsafeBufferPointer { LineHash.hash($0) }, line: 2)
        _ = try ingest([], db: db)
        let w = try Store.openForWriting(path: db)
        try w.exec("INSERT INTO sources(path) VALUES ('/logs/old.ndjson')")
        try w.exec(
            "INSERT INTO rejects(source_id, line, reason, text, line_hash) VALUES (1, 2, 'old', 'x', \(RecordWriter.lineHash(legacy)))")
        XCTAssertEqual(try ingest([p], db: db).rejects, 0)
        XCTAssertEqual(try count("SELECT count(*) FROM rejects", db: db), 1)
    }
}
