import Foundation
import XCTest
@testable import PushLogKit

/// What a fresh-eyes trial of the CLI found, each pinned so it stays fixed.
final class TrialFindingsTests: XCTestCase {
    func testDemoNeverWritesIntoPUSHLOG_DB() throws {
        let tmp = TempDir()
        let prod = tmp.file("prod.db")
        _ = try ingest([Fixtures.path("trust.ndjson")], db: prod)
        let before = try count("SELECT count(*) FROM sends", db: prod)
        let r = try Run.pushlog(
            ["demo", tmp.file("demo"), "--devices", "10", "--weeks", "2", "--no-report", "--quiet"], env: ["PUSHLOG_DB": prod])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try count("SELECT count(*) FROM sends", db: prod), before, "the real database is untouched")
        XCTAssertGreaterThan(try count("SELECT count(*) FROM sends", db: tmp.file("demo/pushlog.db")), 0)
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

    func testByteOrderMarkedCSV() throws {
        let tmp = TempDir()
        let apple = tmp.write("apple.csv", "\u{FEFF}Push Type,Status,Date (UTC),Count\r\nalert,Received,2026-11-14,1300\r\n")
        let plain = tmp.write("plain.csv", "\u{FEFF}time,event,token,status\n2026-11-02T08:00:00Z,send,abcd,200\n")
        let db = tmp.file("b.db")
        let s = try ingest([apple, plain], db: db)
        XCTAssertEqual(s.files.map(\.format), ["apple-metrics", "csv"])
        XCTAssertEqual(s.rejects, 0)
        XCTAssertEqual(try count("SELECT count FROM apple_metrics", db: db), 1300)
        XCTAssertEqual(try count("SELECT count(*) FROM sends", db: db), 1)
    }

    func testReconcileCountsUntypedBackgroundPushesAsBackground() throws {
        let tmp = TempDir()
        let log = tmp.write(
            "r.ndjson",
            """
            {"time":"2026-11-14T08:00:00Z","event":"send","token":"aa","status":200,"payload":{"aps":{"content-available":1}}}
            {"time":"2026-11-14T08:01:00Z","event":"send","token":"aa","status":200,"payload":{"aps":{"alert":"hi"}}}
            {"time":"2026-11-14T08:02:00Z","event":"send","token":"aa","status":200,"push_type":"background","payload":{"aps":{"content-available":1}}}

            """)
        let csv = tmp.write(
            "apple.csv", "Push Type,Status,Date (UTC),Count\nalert,Received,2026-11-14,1\nbackground,Received,2026-11-14,2\n")
        let db = tmp.file("c.db")
        _ = try ingest([log, csv], db: db)
        let r = try Run.pushlog(["--db", db, "report", "reconcile", "--format", "json"])
        let doc = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let days = try XCTUnwrap((doc["sections"] as? [String: Any])?["by_day"] as? [[String: Any]])
        XCTAssertEqual(days.first { $0["push_type"] as? String == "alert" }?["our_accepted"] as? Int, 1)
        XCTAssertEqual(days.first { $0["push_type"] as? String == "background" }?["our_accepted"] as? Int, 2)
    }

    func testSmallFixes() throws {
        let tmp = TempDir()
        let db = tmp.file("t.db")
        _ = try ingest([Fixtures.path("trust.ndjson"), Fixtures.path("bad-lines.ndjson")], db: db)
        // --compare previous with partial week buckets is refused.
        XCTAssertEqual(
            try Run.pushlog([
                "--db", db, "report", "gone", "--since", "2026-11-04", "--until", "2026-11-06", "--by", "week", "--compare", "previous",
            ]).status, 2)
        // rejects: a cut list says so; an unknown --source is an error; a file name is enough.
        let cut = try Run.pushlog(["--db", db, "rejects", "--limit", "1", "--format", "tsv"])
        XCTAssertTrue(cut.stderr.contains("showing 1 of"), cut.stderr)
        XCTAssertEqual(try Run.pushlog(["--db", db, "rejects", "--source", "/nonexistent/x.log"]).status, 1)
        let byName = try Run.pushlog(["--db", db, "rejects", "--source", "bad-lines.ndjson", "--format", "tsv"])
        XCTAssertEqual(byName.status, 0, byName.stderr)
        XCTAssertGreaterThan(byName.stdout.split(separator: "\n").count, 1)
        // A share is a percentage in tables.
        XCTAssertEqual(CellFormat.human(.double(0.0123), column: "share"), "1.23%")
        // 20261109 is a day.
        XCTAssertEqual(TimeArgument.parse("20261109"), TimeArgument.parse("2026-11-09"))
        // --db naming a folder is a usage error with the fix.
        let folder = try Run.pushlog(["--db", tmp.path, "report", "gone"])
        XCTAssertEqual(folder.status, 2)
        XCTAssertTrue(folder.stderr.contains("is a folder") && folder.stderr.contains("pushlog.db"), folder.stderr)
        // A full token typed as a trace key is masked in the error.
        let t = try Run.pushlog(["--db", db, "trace", String(repeating: "ab", count: 32)])
        XCTAssertEqual(t.status, 1)
        XCTAssertFalse(t.stderr.contains(String(repeating: "ab", count: 32)), t.stderr)
        // sources' fingerprint is not mistaken for a token.
        let src = try Run.pushlog(["--db", db, "sources", "--format", "tsv"])
        XCTAssertFalse(src.stdout.contains("…"), src.stdout)
    }
}
