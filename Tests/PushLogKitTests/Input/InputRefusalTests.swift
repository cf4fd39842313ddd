import Foundation
import XCTest
@testable import PushLogKit

/// Inputs that are not logs: refused whole with one line,
/// never stored as rejects; symbolic links out of a walked folder are not followed.
final class InputRefusalTests: XCTestCase {
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)

    /// A log folder with a good log, a PNG, a file with NUL bytes, a README and a link to `..`.
    func makeFolder(_ tmp: TempDir) throws -> String {
        let dir = tmp.file("logs")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixtures.path("canonical.ndjson"), toPath: dir + "/a.ndjson")
        _ = tmp.write("logs/x.png", bytes: Self.png)
        _ = tmp.write("logs/core.bin", bytes: Array("core".utf8) + [0, 0, 0, 7, 0x0A] + Array("{\"time\":1}\n".utf8))
        try FileManager.default.copyItem(atPath: Fixtures.path("not-a-log.md"), toPath: dir + "/README.md")
        // Outside the folder: a log that must not be read through the link.
        try FileManager.default.copyItem(atPath: Fixtures.path("same.ndjson"), toPath: tmp.file("outside.ndjson"))
        try FileManager.default.createSymbolicLink(atPath: dir + "/loop", withDestinationPath: "..")
        try FileManager.default.createSymbolicLink(atPath: dir + "/out.ndjson", withDestinationPath: tmp.file("outside.ndjson"))
        // A link that stays inside the folder is followed (its file is the same log as a.ndjson).
        try FileManager.default.createSymbolicLink(atPath: dir + "/same-a.ndjson", withDestinationPath: "a.ndjson")
        return dir
    }

    func testWalkedFolderSkipsNonLogsWithOneLineEach() throws {
        let tmp = TempDir()
        let dir = try makeFolder(tmp)
        let r = try Run.pushlog(["--db", tmp.file("p.db"), "ingest", "--format", "json", dir])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("skipped \(dir)/x.png: not a text log (PNG image)"), r.stderr)
        XCTAssertTrue(r.stderr.contains("skipped \(dir)/core.bin: not a text log (binary data: NUL bytes at the start)"), r.stderr)
        XCTAssertTrue(r.stderr.contains("skipped \(dir)/README.md: no known format; first line: # Push logs"), r.stderr)
        XCTAssertTrue(r.stdout.contains("\"refused_files\":3"), r.stdout)
        XCTAssertTrue(r.stdout.contains("\"rejects\":0,"), r.stdout)
        // Neither the link to .. nor the link out of the folder was followed.
        XCTAssertFalse(r.stdout.contains("outside") || r.stdout.contains("out.ndjson") || r.stdout.contains("loop/"), r.stdout)
        XCTAssertEqual(try count("SELECT count(*) FROM rejects", db: tmp.file("p.db")), 0)
        XCTAssertEqual(try count("SELECT count(*) FROM sources WHERE format = 'refused'", db: tmp.file("p.db")), 3)
        // The canonical file's 7 records, once (the inside link is the same lines).
        XCTAssertEqual(
            try count(
                "SELECT (SELECT count(*) FROM sends) + (SELECT count(*) FROM registers) + (SELECT count(*) FROM settings) + (SELECT count(*) FROM receipts) + (SELECT count(*) FROM unregisters)",
                db: tmp.file("p.db")), 7)
        // Run again: the refused files are unchanged and say nothing.
        let again = try Run.pushlog(["--db", tmp.file("p.db"), "ingest", "--format", "json", dir])
        XCTAssertEqual(again.status, 0)
        XCTAssertFalse(again.stderr.contains("skipped"), again.stderr)
    }

    func testANamedNonLogIsAnError() throws {
        let tmp = TempDir()
        let dir = try makeFolder(tmp)
        for (name, why) in [("x.png", "not a text log (PNG image)"), ("README.md", "no known format; first line: # Push logs")] {
            let r = try Run.pushlog(["--db", tmp.file("p.db"), "ingest", "--quiet", dir + "/" + name])
            XCTAssertEqual(r.status, 1, name)
            XCTAssertTrue(r.stderr.contains("\(dir)/\(name): \(why)"), r.stderr)
            // Named again while unchanged: still an error.
            XCTAssertEqual(try Run.pushlog(["--db", tmp.file("p.db"), "ingest", "--quiet", dir + "/" + name]).status, 1)
        }
        XCTAssertEqual(try count("SELECT count(*) FROM rejects", db: tmp.file("p.db")), 0)
    }

    func testBinarySniffer() {
        XCTAssertEqual(BinarySniffer.refusal(Self.png), "not a text log (PNG image)")
        XCTAssertEqual(BinarySniffer.refusal([0xFF, 0xD8, 0xFF, 0xE0]), "not a text log (JPEG image)")
        XCTAssertEqual(BinarySniffer.refusal([0x7F, 0x45, 0x4C, 0x46, 2, 1]), "not a text log (ELF executable)")
        XCTAssertEqual(BinarySniffer.refusal([0x50, 0x4B, 0x03, 0x04]), "not a text log (zip archive)")
        XCTAssertEqual(BinarySniffer.refusal(Array("SQLite format 3".utf8) + [0]), "not a text log (SQLite database)")
        XCTAssertNil(BinarySniffer.refusal(Array("BZ is a word\n".utf8)))
        XCTAssertNil(BinarySniffer.refusal(Array("{\"time\":1}\n".utf8)))
        // NUL bytes after the first 4 KiB, or one in a later line, are rejected line by line, not refused.
        XCTAssertNil(BinarySniffer.refusal([UInt8](repeating: 0x61, count: 4096) + [0]))
        XCTAssertNil(BinarySniffer.refusal(Array("{}\n{\"a\":\"".utf8) + [0] + Array("\"}\n".utf8)))
        XCTAssertEqual(BinarySniffer.refusal([0x41, 0, 0x42, 0x0A]), "not a text log (binary data: NUL bytes at the start)")
    }

    func testDetectionRefusesTextWithNoRecordAndReadsEveryFormat() {
        if case .refused(let why) = FormatDetector.detect(Array("# Title\n\nSome prose, with commas.\nkey=value here\n".utf8)) {
            XCTAssertEqual(why, "no known format; first line: # Title")
        } else {
            XCTFail("a README is not a log")
        }
        // A CSV header without a time column used to be "detected as CSV": now nothing reads it.
        if case .refused(let why) = FormatDetector.detect(Array("name,size\nfoo,1\n".utf8)) {
            XCTAssertEqual(why, "no known format; first line: name,size (read as csv: CSV header has no time column: name,size)")
        } else {
            XCTFail("csv without time")
        }
        for (text, name) in [
            ("{\"time\":\"2026-11-02T08:00:00Z\",\"event\":\"send\",\"token\":\"ab\",\"status\":200}\n", "ndjson"),
            ("time=2026-11-02T08:00:00Z event=send token=ab status=200\n", "logfmt"),
            ("time,event,token,status\r\n2026-11-02T08:00:00Z,send,ab,200\r\n", "csv"),
        ] {
            guard case .format(let f, _) = FormatDetector.detect(Array(text.utf8)) else { XCTFail(name); continue }
            XCTAssertEqual(f.name, name)
        }
    }

    func testRefusedFileReasonKeepsNoSecretOrToken() throws {
        let tmp = TempDir()
        let dir = tmp.file("in")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        _ = tmp.write(
            "in/h.txt",
            "auth bearer eyJhIjoxfQ.eyJiIjoyfQ.c2lnbmF0dXJl token 3f2a000000000000000000000000000000000000000000000000000000beef\nmore words\n"
        )
        _ = tmp.write("in/ok.ndjson", "{\"time\":\"2026-11-02T08:00:00Z\",\"event\":\"send\",\"token\":\"ab\",\"status\":200}\n")
        let db = tmp.file("r.db")
        let r = try Run.pushlog(["--db", db, "ingest", dir])
        XCTAssertFalse(r.stderr.contains("eyJiIjoyfQ") || r.stderr.contains("000000000000000000beef"), r.stderr)
        XCTAssertTrue(r.stderr.contains("[REDACTED"), r.stderr)
        let stored = try Store.openForReading(path: db)
        let s = try stored.prepare("SELECT error FROM sources WHERE path LIKE '%h.txt'")
        XCTAssertTrue(try s.step())
        XCTAssertFalse((s.string(0) ?? "").contains("eyJiIjoyfQ"), s.string(0) ?? "")
        XCTAssertEqual(Redactor.redact("Authorization: Bearer eyJhIjoxfQ.eyJiIjoyfQ.c2lnbmF0dXJl"), "Authorization: Bearer [REDACTED JWT]")
    }
}
