import Foundation
import XCTest
@testable import PushLogKit

/// Runs the built binary as a user would.
final class EndToEndTests: XCTestCase {
    func testIngestFolderReportsAndExitCodes() throws {
        let tmp = TempDir()
        let logs = tmp.path + "/logs"
        try FileManager.default.createDirectory(atPath: logs + "/nested", withIntermediateDirectories: true)
        for f in ["canonical.ndjson", "multi-member.ndjson.gz", "bad-lines.ndjson"] {
            try FileManager.default.copyItem(atPath: Fixtures.path(f), toPath: logs + "/nested/" + f)
        }
        let db = tmp.file("p.db")
        let r = try Run.pushlog(["--db", db, "ingest", "--format", "json", logs])
        XCTAssertEqual(r.status, 0, r.stderr)
        let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
        let totals = json["totals"] as! [String: Any]
        XCTAssertEqual(
            totals["records"] as? [String: Int],
            ["send": 7, "request": 1, "response": 1, "register": 1, "settings": 1, "receipt": 1, "unregister": 1])
        XCTAssertEqual(totals["rejects"] as? Int, 6)
        // bad-lines.ndjson's two good lines repeat lines of multi-member.ndjson.gz.
        XCTAssertEqual(totals["duplicates"] as? Int, 2)
        XCTAssertEqual((json["files"] as! [[String: Any]]).count, 3)

        // Second run: nothing new, and still exit 0.
        let again = try Run.pushlog(["--db", db, "ingest", "--format", "json", logs])
        XCTAssertEqual(again.status, 0)
        XCTAssertTrue(again.stdout.contains("\"records\":{}"))

        // A truncated gzip: records kept, exit 1.
        let bad = try Run.pushlog(["--db", db, "ingest", "--quiet", Fixtures.path("truncated.ndjson.gz")])
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stderr.contains("truncated"), bad.stderr)

        // Reports in json: {report, params, sections}, numbers as numbers.
        let rep = try Run.pushlog(["--db", db, "report", "gone", "--format", "json"])
        XCTAssertEqual(rep.status, 0, rep.stderr)
        let doc = try JSONSerialization.jsonObject(with: Data(rep.stdout.utf8)) as! [String: Any]
        XCTAssertEqual(doc["report"] as? String, "gone")
        let sections = doc["sections"] as! [String: [[String: Any]]]
        XCTAssertNotNil(sections["summary"]?.first?["responses"] as? Int)

        // Into a pipe the default is TSV (a table only on a terminal, or when asked for).
        let piped = try Run.pushlog(["--db", db, "report", "gone"])
        XCTAssertTrue(piped.stdout.hasPrefix("# summary\nresponses\tgone\tgone_rate"), piped.stdout)
        let table = try Run.pushlog(["--db", db, "report", "gone", "--format", "table"])
        XCTAssertFalse(table.stdout.contains("\t"))
        XCTAssertTrue(table.stdout.contains("responses"))

        // --fail-if: exit 3 when breached, 0 when not.
        XCTAssertEqual(try Run.pushlog(["--db", db, "report", "gone", "--fail-if", "responses > 0"]).status, 3)
        XCTAssertEqual(try Run.pushlog(["--db", db, "report", "gone", "--fail-if", "responses < 0"]).status, 0)

        // Usage errors: exit 2 with the flag named and a hint.
        let u = try Run.pushlog(["--db", db, "report", "gone", "--sinse", "7d"])
        XCTAssertEqual(u.status, 2)
        XCTAssertTrue(u.stderr.contains("--sinse") && u.stderr.contains("--since"), u.stderr)
        XCTAssertEqual(try Run.pushlog(["--db", db, "report", "nope"]).status, 2)
        XCTAssertEqual(try Run.pushlog(["frobnicate"]).status, 2)

        // Tokens are masked unless --reveal-tokens.
        let q = try Run.pushlog(["--db", db, "query", "--format", "csv", "SELECT token FROM tokens ORDER BY id LIMIT 1"])
        XCTAssertTrue(q.stdout.contains("aaaa1111…8888"), q.stdout)
        let full = try Run.pushlog([
            "--db", db, "query", "--format", "csv", "--reveal-tokens", "SELECT token FROM tokens ORDER BY id LIMIT 1",
        ])
        XCTAssertTrue(full.stdout.contains("aaaa1111bbbb2222cccc3333dddd4444eeee5555ffff6666aaaa7777bbbb8888"))

        // Read-only: no writes, no ATTACH.
        let before = try count("SELECT count(*) FROM sends", db: db)
        let w = try Run.pushlog(["--db", db, "query", "DELETE FROM sends"])
        XCTAssertEqual(w.status, 1)
        let a = try Run.pushlog(["--db", db, "query", "ATTACH DATABASE '\(tmp.file("x.db"))' AS x"])
        XCTAssertEqual(a.status, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: tmp.file("x.db")))
        XCTAssertEqual(try count("SELECT count(*) FROM sends", db: db), before)

        // sources and rejects list what happened.
        let src = try Run.pushlog(["--db", db, "sources", "--format", "csv"])
        XCTAssertTrue(src.stdout.contains("truncated.ndjson.gz") && src.stdout.contains(",no,"), src.stdout)
        // A log with one bad line (a file with no good line at all would be refused whole).
        let tokLine = tmp.write(
            "tok.ndjson",
            "{\"time\":\"2026-11-02T10:00:00Z\",\"event\":\"send\",\"token\":\"ab\",\"status\":200}\n{\"time\":\"soon\",\"event\":\"send\",\"token\":\"aaaa1111bbbb2222cccc3333dddd4444eeee5555ffff6666aaaa7777bbbb8888\",\"status\":200}\n"
        )
        XCTAssertEqual(try Run.pushlog(["--db", db, "ingest", "--quiet", tokLine]).status, 0)
        let rej = try Run.pushlog(["--db", db, "rejects", "--format", "tsv"])
        XCTAssertTrue(rej.stdout.contains("invalid UTF-8"))
        // Tokens inside rejected lines are masked too.
        XCTAssertTrue(rej.stdout.contains("aaaa1111…8888"), rej.stdout)
        XCTAssertFalse(rej.stdout.contains("aaaa1111bbbb2222cccc3333"))
        XCTAssertFalse(rej.stdout.contains("eyJ"))
    }

    func testStdinAndHelp() throws {
        let tmp = TempDir()
        let db = tmp.file("p.db")
        let line = "{\"time\":\"2026-11-02T10:00:00Z\",\"event\":\"send\",\"token\":\"ab12\",\"status\":200}\n"
        let r = try Run.pushlog(["--db", db, "ingest", "--quiet", "-"], stdin: Data(line.utf8))
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(try count("SELECT count(*) FROM sends", db: db), 1)
        for args in [["help"], ["--help"], ["help", "report"], ["ingest", "--help"], ["--version"]] {
            let h = try Run.pushlog(args)
            XCTAssertEqual(h.status, 0)
            XCTAssertFalse(h.stdout.isEmpty)
        }
        // $PUSHLOG_DB is the default database.
        let e = try Run.pushlog(["query", "SELECT count(*) AS n FROM sends"], env: ["PUSHLOG_DB": db])
        XCTAssertEqual(e.status, 0, e.stderr)
    }

    func testTraceOfARotatedToken() throws {
        let tmp = TempDir()
        let db = tmp.file("p.db")
        _ = try ingest([Fixtures.path("reports.ndjson")], db: db)
        let r = try Run.pushlog(["--db", db, "trace", "--format", "tsv", "aaaa0000"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let parts = r.stdout.components(separatedBy: "# device_context\n")
        XCTAssertEqual(parts.count, 2, r.stdout)
        let own = parts[0].split(separator: "\n").map(String.init), context = parts[1]
        // Its own records only: its registration, its sends, its 410 with the APNs timestamp.
        XCTAssertEqual(own[0], "# timeline")
        XCTAssertTrue(own[2].contains("register") && own[2].contains("aaaa0000…0001"))
        XCTAssertTrue(own.contains { $0.contains("410 Unregistered (APNs timestamp 2026-11-02T10:00:00Z)") })
        XCTAssertFalse(parts[0].contains("bbbb0000…0002"), "another token's records are not the token's timeline")
        XCTAssertEqual(own.filter { $0.contains("\tsend\t") }.count, 4)
        // Then, labelled, the device's next token and its settings.
        XCTAssertTrue(context.contains("register\tbbbb0000…0002") && context.contains("403 BadEnvironmentKeyInToken"), context)
        XCTAssertTrue(context.contains("auth denied"), context)
        // An apns-id: the sends with it (the 410 and its retry), then the token's registrations.
        let a = try Run.pushlog(["--db", db, "trace", "--format", "tsv", "id-3"]).stdout.components(separatedBy: "# token_context\n")
        XCTAssertEqual(a[0].split(separator: "\n").filter { $0.contains("apns-id id-3") }.count, 2)
        XCTAssertEqual(a[0].split(separator: "\n").count, 4, "title, header and the two sends: \(a[0])")
        XCTAssertTrue(a[1].contains("register\taaaa0000…0001"), a[1])
        XCTAssertFalse(r.stdout.contains("aaaa000000000000"), "tokens stay masked")
        XCTAssertEqual(try Run.pushlog(["--db", db, "trace", "zzzz"]).status, 1)
        // A user: the timelines of both of u1's devices (dev1 with A and B, dev6 with F).
        let u = try Run.pushlog(["--db", db, "trace", "--format", "tsv", "u1"])
        XCTAssertTrue(u.stdout.contains("ffff0000…0006") && u.stdout.contains("bbbb0000…0002"), u.stdout)
        XCTAssertTrue(u.stdout.contains("auth denied"))
        // A device and an apns-id.
        XCTAssertTrue(try Run.pushlog(["--db", db, "trace", "dev4"]).stdout.contains("BadDeviceToken"))
        XCTAssertTrue(try Run.pushlog(["--db", db, "trace", "id-9"]).stdout.contains("newData"))
    }

    func testPruneDeletesOldRecordsAndKeepsFactsConsistent() throws {
        let tmp = TempDir()
        let db = tmp.file("p.db")
        _ = try ingest([Fixtures.path("reports.ndjson")], db: db)
        // No terminal to ask on (cron, a script): deleting needs --yes, and nothing goes without it.
        let unasked = try Run.pushlog(["--db", db, "prune", "--before", "2026-11-03"])
        XCTAssertEqual(unasked.status, 2, unasked.stderr)
        XCTAssertTrue(unasked.stderr.contains("--yes"), unasked.stderr)
        XCTAssertEqual(try count("SELECT count(*) FROM sends", db: db), 17)
        let r = try Run.pushlog(["--db", db, "prune", "--before", "2026-11-03", "--yes"])
        XCTAssertEqual(r.status, 0, r.stderr)
        // Only Tuesday's and later records remain: C's re-registration and send, E's 410, four settings.
        XCTAssertEqual(try count("SELECT count(*) FROM sends", db: db), 2)
        XCTAssertEqual(try count("SELECT count(*) FROM registers", db: db), 1)
        XCTAssertEqual(try count("SELECT count(*) FROM settings", db: db), 4)
        XCTAssertEqual(try count("SELECT min(time_ms) FROM sends_v", db: db), TimeArgument.parse("2026-11-03T10:00:00Z")!)
        // Derived facts follow: only E's 410 is left as a first 410.
        XCTAssertEqual(try count("SELECT count(*) FROM token_facts WHERE first_410 IS NOT NULL", db: db), 1)
        XCTAssertEqual(try Run.pushlog(["--db", db, "prune"]).status, 2)
    }

    func testUserReportsFromQueriesDirectory() throws {
        let tmp = TempDir()
        let db = tmp.file("p.db")
        _ = try ingest([Fixtures.path("reports.ndjson")], db: db)
        let dir = tmp.path + "/queries"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        _ = tmp.write(
            "queries/topics.sql",
            """
            -- title: Responses by topic
            -- description: A user report.
            -- param: since  start
            -- section: summary
            SELECT topic, count(*) AS responses FROM sends_v WHERE status IS NOT NULL AND time_ms >= :since GROUP BY topic;
            """)
        _ = tmp.write("queries/sneaky.sql", "-- title: Sneaky\n-- section: summary\nDELETE FROM sends;\n")
        let list = try Run.pushlog(["--db", db, "reports", "--queries", dir, "--format", "csv"])
        XCTAssertTrue(list.stdout.contains("topics,Responses by topic"), list.stdout)
        let r = try Run.pushlog(["--db", db, "report", "topics", "--format", "csv"], env: ["PUSHLOG_QUERIES": dir])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("com.example.app,17"), r.stdout)
        // User reports get the same read-only guard.
        let bad = try Run.pushlog(["--db", db, "report", "sneaky", "--queries", dir])
        XCTAssertEqual(bad.status, 1)
        XCTAssertEqual(try count("SELECT count(*) FROM sends", db: db), 17)
        // SQL may start with a comment.
        let q = try Run.pushlog(["--db", db, "query", "--format", "csv", "-- how many\nSELECT count(*) AS n FROM sends"])
        XCTAssertEqual(q.status, 0, q.stderr)
        XCTAssertTrue(q.stdout.contains("17"))
    }

    /// A parameter a user report declares is an option of that report: its default and
    /// `--NAME VALUE` both reach the SQL, typed as declared; a value of another type, or the
    /// option on a report that does not declare it, is a usage error.
    func testAUserReportsOwnParameterIsItsOption() throws {
        let tmp = TempDir()
        let db = tmp.file("p.db")
        _ = try ingest([Fixtures.path("reports.ndjson")], db: db)
        let dir = tmp.path + "/queries"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        _ = tmp.write(
            "queries/busy.sql",
            """
            -- title: Busy tokens
            -- description: Tokens with at least threshold responses.
            -- param: threshold int = 2  the fewest responses a busy token has
            -- param: kind enum(any,gone) = any  any response, or 410s only
            -- section: summary
            SELECT count(*) AS busy_tokens FROM (
              SELECT token_id FROM responses WHERE :kind = 'any' OR status = 410
              GROUP BY token_id HAVING count(*) >= :threshold);
            """)
        func busy(_ options: [String]) throws -> Int? {
            let r = try Run.pushlog(["--db", db, "report", "busy", "--queries", dir, "--format", "csv"] + options)
            XCTAssertEqual(r.status, 0, r.stderr)
            return Int(r.stdout.split(separator: "\n").last.map(String.init) ?? "")
        }
        let direct = { (n: Int, gone: Bool) in
            try count(
                "SELECT count(*) FROM (SELECT token_id FROM responses \(gone ? "WHERE status = 410" : "") GROUP BY token_id HAVING count(*) >= \(n))",
                db: db)
        }
        XCTAssertEqual(try busy([]).map(Int64.init), try direct(2, false))
        XCTAssertEqual(try busy(["--threshold", "1"]).map(Int64.init), try direct(1, false))
        XCTAssertEqual(try busy(["--threshold=3", "--kind", "gone"]).map(Int64.init), try direct(3, true))
        XCTAssertNotEqual(try direct(1, false), try direct(2, false), "the fixture must tell the thresholds apart")
        let wrongType = try Run.pushlog(["--db", db, "report", "busy", "--queries", dir, "--threshold", "many"])
        XCTAssertEqual(wrongType.status, 2)
        XCTAssertTrue(wrongType.stderr.contains("--threshold expects a whole number, got 'many'"), wrongType.stderr)
        let notAnEnum = try Run.pushlog(["--db", db, "report", "busy", "--queries", dir, "--kind", "all"])
        XCTAssertEqual(notAnEnum.status, 2, notAnEnum.stderr)
        let elsewhere = try Run.pushlog(["--db", db, "report", "gone", "--queries", dir, "--threshold", "1"])
        XCTAssertEqual(elsewhere.status, 2)
        XCTAssertTrue(elsewhere.stderr.contains("--threshold"), elsewhere.stderr)
        let help = try Run.pushlog(["report", "busy", "--queries", dir, "--help"])
        XCTAssertTrue(help.stdout.contains("--threshold INT"), help.stdout)
        let completion = try Run.pushlog(["completion", "bash"], env: ["PUSHLOG_QUERIES": dir])
        XCTAssertTrue(completion.stdout.contains("--threshold"), "completion offers the report's own option")
    }

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

    /// trust.ndjson and bad-lines.ndjson in a fresh database.
    func smallDatabase(_ tmp: TempDir) throws -> String {
        let db = tmp.file("t.db")
        _ = try ingest([Fixtures.path("trust.ndjson"), Fixtures.path("bad-lines.ndjson")], db: db)
        return db
    }

    /// After `swift run`, pushlog is not on PATH: the demo's next steps name the binary it ran
    /// from, and each runs as printed, from the folder the demo ran in, with no terminal.
    func testDemoNextStepsRunAsPrinted() throws {
        let tmp = TempDir()
        let demo = try Shell.run("cd \(tmp.path) && PATH=/usr/bin:/bin \(Fixtures.binary) demo d --devices 100 --weeks 2 > /dev/null")
        XCTAssertEqual(demo.status, 0, demo.stderr)
        let steps = demo.stderr.split(separator: "\n").compactMap { line -> String? in
            let l = line.hasPrefix("next:") ? line.dropFirst(5) : line.hasPrefix("      ") ? line[...] : nil
            guard let l, let cmd = l.split(separator: "(").first?.trimmingCharacters(in: .whitespaces), !cmd.isEmpty else { return nil }
            return cmd
        }
        XCTAssertEqual(steps.count, 4, demo.stderr)
        XCTAssertTrue(demo.stderr.contains("scripts/install.sh"), demo.stderr)
        for step in steps {
            XCTAssertFalse(step.hasPrefix("pushlog "), "pushlog is not on this PATH: \(step)")
            let r = try Shell.run("cd \(tmp.path) && PATH=/usr/bin:/bin \(step) > /dev/null")
            XCTAssertEqual(r.status, 0, "\(step): \(r.stderr)")
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: tmp.file("weekly.html")))
    }

    func testCompareRefusesPartialTimeBuckets() throws {
        let tmp = TempDir()
        let db = try smallDatabase(tmp)
        XCTAssertEqual(
            try Run.pushlog([
                "--db", db, "report", "gone", "--since", "2026-11-04", "--until", "2026-11-06", "--by", "week", "--compare", "previous",
            ]).status, 2)
    }

    func testRejectsSaysWhenCutAndFindsASourceByFileName() throws {
        let tmp = TempDir()
        let db = try smallDatabase(tmp)
        let cut = try Run.pushlog(["--db", db, "rejects", "--limit", "1", "--format", "tsv"])
        XCTAssertTrue(cut.stderr.contains("showing 1 of"), cut.stderr)
        XCTAssertEqual(try Run.pushlog(["--db", db, "rejects", "--source", "/nonexistent/x.log"]).status, 1)
        let byName = try Run.pushlog(["--db", db, "rejects", "--source", "bad-lines.ndjson", "--format", "tsv"])
        XCTAssertEqual(byName.status, 0, byName.stderr)
        XCTAssertGreaterThan(byName.stdout.split(separator: "\n").count, 1)
    }

    /// A rejected line keeps what follows a NUL byte, and CSV shows its control characters
    /// escaped: no raw CR or LF splits a row, none reaches a terminal.
    func testARejectedLineIsShownWholeAndEscaped() throws {
        let tmp = TempDir()
        let db = tmp.file("t.db")
        let good = #"{"time":"2026-11-02T10:00:00Z","type":"send","token":"\#(Self.token(1))","status":200}"#
        var bytes = Array((good + "\n").utf8)
        bytes += Array("junk before\u{0}after the NUL\n".utf8)
        bytes += Array("junk with\rcarriage return and \u{7}bell\n".utf8)
        let log = tmp.write("nul.ndjson", bytes: bytes + Array((good + "\n").utf8))
        XCTAssertEqual(try Run.pushlog(["--db", db, "ingest", "--quiet", log]).status, 0)
        let csv = try Run.pushlog(["--db", db, "rejects", "--format", "csv"])
        XCTAssertEqual(csv.status, 0, csv.stderr)
        XCTAssertTrue(csv.stdout.contains(#"junk before\x00after the NUL"#), csv.stdout)
        XCTAssertTrue(csv.stdout.contains(#"junk with\rcarriage return and \x07bell"#), csv.stdout)
        XCTAssertFalse(csv.stdout.contains("\r") || csv.stdout.contains("\u{0}") || csv.stdout.contains("\u{7}"), csv.stdout)
        XCTAssertEqual(csv.stdout.split(separator: "\n").count, 3, csv.stdout)  // the header and one row per reject
    }

    /// A damaged database is the database's fault, not the query's: the message names the file.
    func testQueryOnADamagedDatabaseNamesTheFile() throws {
        let tmp = TempDir()
        let db = tmp.file("damaged.db")
        XCTAssertEqual(try Run.pushlog(["--db", db, "ingest", "--quiet", Fixtures.path("reports.ndjson")]).status, 0)
        let root = try count("SELECT rootpage FROM sqlite_master WHERE name = 'sends'", db: db)
        let h = FileHandle(forWritingAtPath: db)!
        try h.seek(toOffset: UInt64(root - 1) * 4096)
        h.write(Data(repeating: 0xFF, count: 4096))
        try h.close()
        let r = try Run.pushlog(["--db", db, "query", "SELECT * FROM sends"])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("\(db) is damaged: database disk image is malformed"), r.stderr)
        XCTAssertTrue(r.stderr.contains("pushlog --db \(db) check"), r.stderr)
    }

    func testDatabaseNamingAFolderIsAUsageError() throws {
        let tmp = TempDir()
        let folder = try Run.pushlog(["--db", tmp.path, "report", "gone"])
        XCTAssertEqual(folder.status, 2)
        XCTAssertTrue(folder.stderr.contains("is a folder") && folder.stderr.contains("pushlog.db"), folder.stderr)
    }

    func testTraceMasksATypedTokenInItsError() throws {
        let tmp = TempDir()
        let db = try smallDatabase(tmp)
        let t = try Run.pushlog(["--db", db, "trace", String(repeating: "ab", count: 32)])
        XCTAssertEqual(t.status, 1)
        XCTAssertFalse(t.stderr.contains(String(repeating: "ab", count: 32)), t.stderr)
    }

    func testSourcesFingerprintIsNotMistakenForAToken() throws {
        let tmp = TempDir()
        let db = try smallDatabase(tmp)
        let src = try Run.pushlog(["--db", db, "sources", "--format", "tsv"])
        XCTAssertFalse(src.stdout.contains("…"), src.stdout)
    }
}
