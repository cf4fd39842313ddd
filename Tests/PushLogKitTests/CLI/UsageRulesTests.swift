import Foundation
import XCTest
@testable import PushLogKit

/// Small rules of the command line: conflicts and repeats are usage errors, one section for a
/// spreadsheet, any env a log names, one rule for an empty database, hints that run as printed.
final class UsageRulesTests: XCTestCase {
    var db: String { IngestedFixtures.reports }

    func testConflictsAndRepeatsAreUsageErrors() throws {
        let tmp = TempDir()
        let conflict = try Run.pushlog(["--db", db, "report", "gone", "-o", tmp.file("x.json"), "--format", "csv"])
        XCTAssertEqual(conflict.status, 2)
        XCTAssertTrue(conflict.stderr.contains("-o \(tmp.file("x.json")) says json but --format says csv"), conflict.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: tmp.file("x.json")))
        let twice = try Run.pushlog(["--db", db, "report", "gone", "--since", "2026-11-02", "--since", "2026-11-03"])
        XCTAssertEqual(twice.status, 2)
        XCTAssertTrue(twice.stderr.contains("--since given twice"), twice.stderr)
        // --fail-if adds conditions; the same value twice is harmless.
        XCTAssertEqual(
            try Run.pushlog(["--db", db, "report", "gone", "--fail-if", "gone > 100", "--fail-if", "responses > 100"]).status, 0)
    }

    /// `--db` and `--clickhouse` on the command line beat `$PUSHLOG_CLICKHOUSE`; both at once is a
    /// usage error, not a silent pick (figures from the other store, exit 0).
    func testTheStoreOnTheCommandLineWins() throws {
        let nowhere = "http://127.0.0.1:1/pushlog"  // nothing listens: any use of it fails loudly
        let args = ["report", "gone", "--section", "summary", "--format", "csv"]
        let sqlite = try Run.pushlog(["--db", db] + args)
        XCTAssertEqual(sqlite.status, 0, sqlite.stderr)
        let flagWins = try Run.pushlog(["--db", db] + args, env: ["PUSHLOG_CLICKHOUSE": nowhere])
        XCTAssertEqual(flagWins.status, 0, flagWins.stderr)
        XCTAssertEqual(flagWins.stdout, sqlite.stdout)
        for both in [["--db", db, "--clickhouse", nowhere] + args, ["--clickhouse", nowhere] + args + ["--db", db]] {
            let r = try Run.pushlog(both)
            XCTAssertEqual(r.status, 2, r.stderr)
            XCTAssertTrue(r.stderr.contains("--db and --clickhouse name two stores; give one"), r.stderr)
        }
        // After the command, as --db: the server is the store (and cannot be reached).
        let after = try Run.pushlog(args + ["--clickhouse", nowhere])
        XCTAssertEqual(after.status, 1, after.stderr)
        XCTAssertTrue(after.stderr.contains("cannot reach ClickHouse at http://127.0.0.1:1/pushlog"), after.stderr)
    }

    /// A server that takes the connection and never answers (hung, or a proxy in front of a dead
    /// one) is given up on after `$PUSHLOG_CLICKHOUSE_TIMEOUT` seconds: exit 1, naming the URL,
    /// not a cron job that waits forever.
    func testAServerThatNeverAnswersIsGivenUpOn() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        XCTAssertEqual(bound, 0)
        XCTAssertEqual(listen(fd, 8), 0)  // the kernel completes the connection; nothing ever reads or answers
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        let url = "http://ops:secret@127.0.0.1:\(UInt16(bigEndian: addr.sin_port))/pushlog"
        let started = Date()
        let r = try Run.pushlog(["--clickhouse", url, "report", "gone"], env: ["PUSHLOG_CLICKHOUSE_TIMEOUT": "1"])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(started), 30)
        XCTAssertTrue(r.stderr.contains("cannot reach ClickHouse at http://ops:***@127.0.0.1:"), r.stderr)
        XCTAssertTrue(r.stderr.contains("no answer for 1 s"), r.stderr)
        XCTAssertFalse(r.stderr.contains("secret"), r.stderr)
        let wrong = try Run.pushlog(["--clickhouse", url, "report", "gone"], env: ["PUSHLOG_CLICKHOUSE_TIMEOUT": "soon"])
        XCTAssertEqual(wrong.status, 2, wrong.stderr)
        XCTAssertTrue(wrong.stderr.contains("PUSHLOG_CLICKHOUSE_TIMEOUT expects seconds"), wrong.stderr)
    }

    /// A ClickHouse URL that does not parse is quoted with its password masked, however it is
    /// mistyped and wherever it comes from (flag before or after the command, or environment).
    func testAMalformedClickHouseURLNeverShowsItsPassword() throws {
        let typos = [
            "pushlog:secret@host:8123", "http:/pushlog:secret@host:8123", "http//pushlog:secret@host:8123",
            "http://pushlog:secret@host:8123/bad-name", "ftp://pushlog:secret@host", "pushlog:se:cr@et@host",
        ]
        for url in typos {
            for run in [
                try Run.pushlog(["--clickhouse", url, "report", "gone"]), try Run.pushlog(["report", "gone", "--clickhouse=\(url)"]),
                try Run.pushlog(["report", "gone"], env: ["PUSHLOG_CLICKHOUSE": url]),
            ] {
                XCTAssertEqual(run.status, 2, run.stderr)
                XCTAssertTrue(run.stderr.contains("cannot read the ClickHouse URL"), run.stderr)
                XCTAssertTrue(run.stderr.contains("***@"), run.stderr)
                XCTAssertFalse(run.stderr.contains("secret") || run.stderr.contains("cr@et"), run.stderr)
            }
        }
        XCTAssertEqual(ClickHouseURL.masked("http//pushlog:secret@host:8123"), "http//pushlog:***@host:8123")
        XCTAssertEqual(ClickHouseURL.masked("pushlog:secret@host:8123"), "pushlog:***@host:8123")
        XCTAssertEqual(ClickHouseURL.masked("pushlog:se:cr@et@host"), "pushlog:***@host")
        XCTAssertEqual(ClickHouseURL.masked("http://host:8123/pushlog"), "http://host:8123/pushlog")
    }

    /// A malformed `$PUSHLOG_CLICKHOUSE_TOUCHED_ROWS` is a usage error naming it, before any
    /// request: exit 2, as for every setting.
    func testTheTouchedRowsSettingIsACount() throws {
        let r = try Run.pushlog(
            ["--clickhouse", "http://127.0.0.1:9/pushlog", "report", "gone"], env: ["PUSHLOG_CLICKHOUSE_TOUCHED_ROWS": "5M"])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("PUSHLOG_CLICKHOUSE_TOUCHED_ROWS expects"), r.stderr)
        XCTAssertTrue(r.stderr.contains("'5M'"), r.stderr)
    }

    func testOneSectionForASpreadsheet() throws {
        let r = try Run.pushlog(["--db", db, "report", "gone", "--section", "summary", "--format", "csv"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "responses,gone,gone_rate,tokens_gone,sends_after_gone\n17,4,0.235294,3,1\n")
        let wrong = try Run.pushlog(["--db", db, "report", "gone", "--section", "summry"])
        XCTAssertEqual(wrong.status, 2)
        XCTAssertTrue(wrong.stderr.contains("did you mean --section summary?"), wrong.stderr)
    }

    func testAnyEnvTheLogsNameIsAFilter() throws {
        let r = try Run.pushlog(["--db", db, "report", "gone", "--env", "staging", "--section", "summary", "--format", "csv"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.hasSuffix("\n0,0,,0,0\n"), r.stdout)
        XCTAssertTrue(r.stderr.contains("no responses sent to env 'staging'; envs seen: production"), r.stderr)
    }

    func testEmptyDatabaseIsOneRuleForEveryReport() throws {
        let tmp = TempDir()
        let empty = tmp.file("e.db")
        let folder = tmp.file("nothing")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        XCTAssertEqual(try Run.pushlog(["--db", empty, "ingest", folder]).status, 0)
        for report in ["gone", "weekly", "churn", "errors"] {
            let r = try Run.pushlog(["--db", empty, "report", report])
            XCTAssertEqual(r.status, 0, "\(report): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("the database holds no records"), "\(report): \(r.stderr)")
        }
    }

    func testHintsRunAsPrinted() throws {
        let tmp = TempDir()
        let good = "{\"time\":\"2026-11-02T10:00:00Z\",\"event\":\"send\",\"token\":\"abab\",\"status\":200}\n"
        let file = tmp.write("bad.ndjson", "{\"time\":\"2026-11-02T10:00:00Z\",\"event\":\"send\"}\n" + good)
        let dbPath = tmp.file("my db.db")
        let r = try Run.pushlog(["--db", dbPath, "ingest", file])
        let hint = try XCTUnwrap(r.stderr.split(separator: "\n").first { $0.contains("see the rejected lines with:") })
        let command = String(hint.split(separator: ":", maxSplits: 1)[1]).trimmingCharacters(in: .whitespaces)
        XCTAssertTrue(command.hasPrefix("pushlog --db '\(dbPath)' rejects"), command)
        let run = try Shell.run(Fixtures.binary + command.dropFirst("pushlog".count))
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("bad.ndjson"), run.stdout)
        // reconcile without Apple's metrics says what is missing.
        let rec = try Run.pushlog(["--db", db, "report", "reconcile"])
        XCTAssertTrue(rec.stderr.contains("no Apple delivery metrics"), rec.stderr)
    }

    /// The format samples are whole lines to paste: each built-in one reads as a record.
    func testFormatSamplesCanBePastedToTry() throws {
        let r = try Run.pushlog(["formats", "--format", "json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let doc = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
        let rows = (doc["sections"] as! [String: Any])["formats"] as! [[String: Any]]
        XCTAssertFalse(r.stdout.contains("…"), "no sample is masked or elided")
        let tmp = TempDir()
        for name in ["ndjson", "logfmt", "gorush"] {
            let sample = try XCTUnwrap(rows.first { $0["format"] as? String == name }?["sample"] as? String)
            let db = tmp.file(name + ".db")
            let ingest = try Run.pushlog(["--db", db, "ingest", "--format", "json", "-"], stdin: Data((sample + "\n").utf8))
            XCTAssertEqual(ingest.status, 0, "\(name): \(ingest.stderr)")
            XCTAssertTrue(ingest.stdout.contains("\"records\":{\"send\":1}"), "\(name): \(ingest.stdout)")
        }
    }
}
