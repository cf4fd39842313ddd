import Foundation
import XCTest
@testable import PushLogKit

/// The rules every command keeps (docs/guarantees.md), so a figure is right or refused out loud:
/// strict arguments, filters that apply to the whole page, definitions that do not mislead,
/// output that pipes and masks safely, empty results that say why.
///
/// Fixture `trust.ndjson` (hand-written, 18 lines): topic com.a answers 200s and one 410 on
/// Monday 2026-11-02; topic com.b has an ExpiredProviderToken burst (4 × 403, 14:00–14:03) on
/// Tuesday; no response on Thursday 11-05. Opt-ins: dev0 10-10 (off 10-28), dev1 10-20, dev2 10-21
/// (off 10-25), dev3 11-06; the last record is 2026-11-08T12:00.
final class CommandRulesTests: XCTestCase {
    var tmp: TempDir!
    var db: String!

    override func setUpWithError() throws {
        tmp = TempDir()
        db = tmp.file("t.db")
        _ = try ingest([Fixtures.path("trust.ndjson")], db: db)
    }

    func pushlog(_ args: [String]) throws -> Run { try Run.pushlog(["--db", db] + args) }

    func json(_ args: [String]) throws -> [String: Any] {
        let r = try pushlog(args + ["--format", "json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
    }

    func section(_ doc: [String: Any], _ name: String) -> [[String: Any]] {
        ((doc["sections"] as? [String: Any])?[name] as? [[String: Any]]) ?? []
    }

    // MARK: arguments

    func testStrayArgumentsAndUndeclaredOptionsAreUsageErrors() throws {
        let stray = try pushlog(["report", "gone", "yesterday"])
        XCTAssertEqual(stray.status, 2)
        XCTAssertTrue(stray.stderr.contains("unexpected argument 'yesterday'") && stray.stderr.contains("--since yesterday"), stray.stderr)
        XCTAssertEqual(stray.stdout, "")
        let week = try pushlog(["report", "gone", "--week", "2026-W45"])
        XCTAssertEqual(week.status, 2)
        XCTAssertTrue(week.stderr.contains("does not take --week"), week.stderr)
        let since = try pushlog(["report", "weekly", "--since", "7d"])
        XCTAssertEqual(since.status, 2)
        XCTAssertTrue(since.stderr.contains("--week"), since.stderr)
        XCTAssertEqual(try pushlog(["report", "silent", "--unit", "user"]).status, 2)
        XCTAssertEqual(try pushlog(["report", "errors", "--by", "week"]).status, 2, "errors buckets by minute, 5m, hour or day")
        XCTAssertEqual(try pushlog(["sources", "extra"]).status, 2)
        XCTAssertEqual(try pushlog(["prune", "90d"]).status, 2)
        let bare = try Run.pushlog([])
        XCTAssertEqual(bare.status, 2)
        XCTAssertTrue(bare.stderr.contains("USAGE") && bare.stdout.isEmpty)
        XCTAssertEqual(try pushlog(["report", "gone", "-o", tmp.file("r.xlsx")]).status, 2)
        XCTAssertFalse(FileManager.default.fileExists(atPath: tmp.file("r.xlsx")))
    }

    func testFailIfRepeatsCombinesAndRefusesUnknownColumns() throws {
        // gone over all data: 11 responses, 1 gone.
        XCTAssertEqual(try pushlog(["report", "gone", "--fail-if", "gone > 5", "--fail-if", "responses > 5"]).status, 3)
        XCTAssertEqual(try pushlog(["report", "gone", "--fail-if", "gone > 5", "--fail-if", "responses > 50"]).status, 0)
        XCTAssertEqual(try pushlog(["report", "gone", "--fail-if", "gone >= 1 and responses > 5"]).status, 3)
        XCTAssertEqual(try pushlog(["report", "gone", "--fail-if", "gone >= 2 and responses > 5"]).status, 0)
        XCTAssertEqual(try pushlog(["report", "gone", "--fail-if", "gone >= 2 or responses = 11"]).status, 3)
        let unknown = try pushlog(["report", "gone", "--fail-if", "gone > 1", "--fail-if", "gone_rat > 0.1"])
        XCTAssertEqual(unknown.status, 2)
        XCTAssertEqual(unknown.stdout, "", "refused before anything is printed")
        XCTAssertTrue(unknown.stderr.contains("gone_rate"), unknown.stderr)
    }

    // MARK: filters

    func testWeeklyFilterAppliesToEverySection() throws {
        let all = try json(["report", "weekly", "--week", "2026-W45"])
        func kpi(_ doc: [String: Any], _ name: String) -> Any? {
            section(doc, "kpis").first { $0["metric"] as? String == name }?["this_week"]
        }
        XCTAssertEqual(kpi(all, "responses") as? Int, 9)
        XCTAssertEqual(kpi(all, "auth_errors") as? Int, 4)
        XCTAssertEqual(section(all, "incidents").count, 1)
        XCTAssertEqual(section(all, "incidents").first?["window_start"] as? String, "2026-11-03T14:00:00Z")

        let a = try json(["report", "weekly", "--week", "2026-W45", "--topic", "com.a"])
        XCTAssertEqual(kpi(a, "responses") as? Int, 3)
        XCTAssertEqual(kpi(a, "auth_errors") as? Int, 0)
        XCTAssertEqual(kpi(a, "accepted_share") as? Double, 0.666667)
        XCTAssertEqual(section(a, "incidents").count, 0, "com.b's incident is not com.a's")
        XCTAssertEqual(section(a, "top_reasons").map { $0["reason"] as? String }, ["Unregistered"])
        XCTAssertEqual(section(a, "trend_daily").reduce(0) { $0 + ($1["responses"] as? Int ?? 0) }, 5, "2 last week + 3 this week")
        // KPIs that cannot be split by topic are empty, never unfiltered; the filter is stated.
        XCTAssertTrue(kpi(a, "rejects") is NSNull && kpi(a, "turn_off_rate") is NSNull && kpi(a, "rotation_rate") is NSNull)
        XCTAssertEqual((a["params"] as? [String: Any])?["topic"] as? String, "com.a")
        let table = try pushlog(["report", "weekly", "--week", "2026-W45", "--topic", "com.a", "--format", "table"])
        XCTAssertTrue(table.stdout.hasPrefix("Weekly push health — 2026-W45 — only topic com.a"), table.stdout)
        // churn: registration columns empty under a filter.
        let churn = try json(["report", "churn", "--topic", "com.a"])
        XCTAssertTrue(section(churn, "summary").first?["active_devices"] is NSNull)
        XCTAssertNotNil(section(churn, "summary").first?["superseded_sends"] as? Int)
    }

    // MARK: definitions

    func testOptOutCohortsAreCensoredAndTurnOffRateIsAgeInvariant() throws {
        let doc = try json(["report", "opt-out"])
        let cohorts = Dictionary(uniqueKeysWithValues: section(doc, "by_cohort").map { ($0["cohort"] as! String, $0) })
        XCTAssertEqual(Set(cohorts.keys), ["2026-W41", "2026-W43", "2026-W45"])
        // W41: dev0 stayed on 7 days (off after 18); 30 days after 10-10 is past the data's end.
        XCTAssertEqual(cohorts["2026-W41"]?["still_on_7d_share"] as? Double, 1)
        XCTAssertEqual(cohorts["2026-W41"]?["eligible_7d"] as? Int, 1)
        XCTAssertTrue(cohorts["2026-W41"]?["still_on_30d_share"] is NSNull)
        XCTAssertEqual(cohorts["2026-W41"]?["eligible_30d"] as? Int, 0)
        // W43: dev2 turned off after 4 days, dev1 stayed on.
        XCTAssertEqual(cohorts["2026-W43"]?["still_on_7d_share"] as? Double, 0.5)
        XCTAssertEqual(cohorts["2026-W43"]?["eligible_7d"] as? Int, 2)
        // W45: dev3 opted in two days before the end: too young for any value, not 0.
        XCTAssertTrue(cohorts["2026-W45"]?["still_on_7d_share"] is NSNull)
        XCTAssertEqual(cohorts["2026-W45"]?["eligible_7d"] as? Int, 0)
        // turn_off_rate of W44: on at its start dev0 and dev1 (dev2 was off already); dev0 turned off.
        let w44 = try json(["report", "opt-out", "--since", "2026-W44", "--until", "2026-W45"])
        XCTAssertEqual(section(w44, "turn_off_rate").first?["on_at_start"] as? Int, 2)
        XCTAssertEqual(section(w44, "turn_off_rate").first?["turned_off"] as? Int, 1)
        XCTAssertEqual(section(w44, "turn_off_rate").first?["turn_off_rate"] as? Double, 0.5)
        let weekly = try json(["report", "weekly", "--week", "2026-W45"])
        let row = try XCTUnwrap(section(weekly, "kpis").first { $0["metric"] as? String == "turn_off_rate" })
        XCTAssertEqual((row["this_week"] as? NSNumber)?.doubleValue, 0)  // dev1 on at the start, still on
        XCTAssertEqual((row["last_week"] as? NSNumber)?.doubleValue, 0.5)
        XCTAssertFalse(section(weekly, "kpis").contains { $0["metric"] as? String == "turned_off_share" })
        XCTAssertEqual(section(weekly, "trend_turn_off_rate").count, 8)
    }

    func testEmptyBucketsAreShownWithZeros() throws {
        let gone = try json(["report", "gone", "--since", "2026-11-02", "--until", "2026-11-07", "--by", "day"])
        let rows = section(gone, "by_bucket")
        XCTAssertEqual(rows.map { $0["bucket"] as? String }, ["2026-11-02", "2026-11-03", "2026-11-04", "2026-11-05", "2026-11-06"])
        let thursday = rows[3]
        XCTAssertEqual(thursday["responses"] as? Int, 0)
        XCTAssertTrue(thursday["gone_rate"] is NSNull, "a rate over no responses has no value")
        XCTAssertEqual(rows.reduce(0) { $0 + ($1["responses"] as? Int ?? 0) }, section(gone, "summary").first?["responses"] as? Int)
        let tsv = try pushlog([
            "report", "errors", "--since", "2026-11-03T13:00Z", "--until", "2026-11-03T16:00Z", "--by", "hour", "--format", "tsv",
        ])
        // No responses at all in those hours: bucket_responses 0 and no share (an outage reads so).
        XCTAssertTrue(
            tsv.stdout.contains("2026-11-03T13\t\t\t\t0\t0\t\n") && tsv.stdout.contains("2026-11-03T15\t\t\t\t0\t0\t\n"), tsv.stdout)
        // The weekly chart has all 14 days, the outage day among them.
        let weekly = try json(["report", "weekly", "--week", "2026-W45"])
        let days = section(weekly, "trend_daily")
        XCTAssertEqual(days.count, 14)
        XCTAssertEqual(days.first { $0["day"] as? String == "2026-11-05" }?["responses"] as? Int, 0)
        let html = try pushlog(["report", "weekly", "--week", "2026-W45", "--format", "html"]).stdout
        XCTAssertTrue(html.contains("data-points=\"14\""), "the daily charts draw every day")
    }

    // MARK: output

    func testDelimitedOutputEndsLinesWithNewlineAndEscapes() throws {
        let tsv = try pushlog(["query", "--format", "tsv", "SELECT 'a' || char(9) || 'b' || char(10) || 'c\\d' AS x, 1 AS n"])
        XCTAssertEqual(tsv.stdout, "x\tn\na\\tb\\nc\\\\d\t1\n")
        let csv = try pushlog(["query", "--format", "csv", "SELECT 'p,q' AS x"])
        XCTAssertEqual(csv.stdout, "x\n\"p,q\"\n")
        XCTAssertFalse(csv.stdout.contains("\r"))
    }

    func testQueryRunsEveryStatement() throws {
        let r = try pushlog(["query", "--format", "json", "SELECT 1 AS a; SELECT 2 AS b;"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("\"result_1\":[{\"a\":1}]") && r.stdout.contains("\"result_2\":[{\"b\":2}]"), r.stdout)
        let f = tmp.write("q.sql", "-- two questions\nSELECT count(*) AS n FROM sends_v;\nSELECT count(*) AS m FROM registers_v;\n")
        let rf = try pushlog(["query", "--format", "json", "-f", f])
        XCTAssertTrue(rf.stdout.contains("\"n\":11") && rf.stdout.contains("\"m\":4"), rf.stdout)
        let dot = try pushlog(["query", ".tables"])
        XCTAssertEqual(dot.status, 2)
        XCTAssertTrue(dot.stderr.contains("pushlog schema"))
        XCTAssertEqual(try pushlog(["query", "PRAGMA journal_mode = DELETE"]).status, 1, "only read-only pragmas")
    }

    func testTokensAreMaskedByValueEverywhere() throws {
        let other = tmp.file("r.db")
        _ = try ingest([Fixtures.path("reports.ndjson")], db: other)
        let q = """
            SELECT token AS tok, 'x' || token || 'y' AS glued, json_object('t', token) AS js FROM tokens
            """
        let r = try Run.pushlog(["--db", other, "query", "--format", "tsv", q])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertFalse(r.stdout.contains("aaaa000000000000000000"), r.stdout)
        XCTAssertTrue(r.stdout.contains("xaaaa0000…0001y") && r.stdout.contains("{\"t\":\"aaaa0000…0001\"}"), r.stdout)
        // A malformed token (not hex) is masked by the database's list of tokens.
        XCTAssertFalse(r.stdout.contains("{length = 32, bytes = 0x12345678 ... 9abcdef0}"), r.stdout)
        let revealed = try Run.pushlog(["--db", other, "query", "--format", "tsv", "--reveal-tokens", q])
        XCTAssertTrue(revealed.stdout.contains("aaaa000000000000000000000000000000000000000000000000000000000001"))
    }

    func testControlCharactersFromLogsAreShownEscaped() throws {
        let hostile = tmp.write(
            "hostile.ndjson",
            "{\"time\":\"2026-11-02T08:00:00Z\",\"event\":\"send\",\"token\":\"ab\",\"status\":200}\n"
                + "not json \u{1B}]0;pwned\u{07} \u{1B}[31mred\u{1B}[0m \u{9B}2J\n")
        let h = tmp.file("h.db")
        _ = try ingest([hostile], db: h)
        for format in ["table", "tsv", "csv", "markdown", "json"] {
            let r = try Run.pushlog(["--db", h, "rejects", "--format", format])
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertFalse(
                r.stdout.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{07}" || $0 == "\u{9B}" }, "\(format): \(r.stdout)")
            XCTAssertTrue(r.stdout.contains(format == "json" ? "\\u001b]0;pwned\\u0007" : "\\x1b]0;pwned\\x07"), "\(format): \(r.stdout)")
        }
    }

    func testSchemaDescribesEveryColumn() throws {
        let conn = try Store.openForReading(path: db)
        for doc in Schema.docs {
            let s = try conn.prepare("SELECT name FROM pragma_table_info(?1)")
            s.bind(1, doc.name)
            var columns: [String] = []
            while try s.step() { columns.append(s.string(0) ?? "") }
            XCTAssertEqual(columns, doc.columns.map(\.0), "\(doc.name): pushlog schema must describe exactly its columns")
        }
        // ... and every table and view has its doc.
        let all = try conn.prepare(
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' ORDER BY name")
        var names: [String] = []
        while try all.step() { names.append(all.string(0) ?? "") }
        XCTAssertEqual(names, Schema.docs.map(\.name).sorted())
        let r = try pushlog(["schema", "sends", "--format", "tsv"])
        XCTAssertTrue(r.stdout.contains("apns_ts\ttimestamp of a 410 body"), r.stdout)
        XCTAssertEqual(try pushlog(["schema", "sendz"]).status, 2)
        let t = try pushlog([
            "query", "--format", "tsv", "SELECT time_ms('2026-11-12') AS a, time_ms('2026-W45') AS b, time_ms('-1h') < time_ms('now') AS c",
        ])
        XCTAssertEqual(t.stdout, "a\tb\tc\n1794441600000\t1793577600000\t1\n")
    }

    // MARK: sources and ingest

    func testOneSourcePerFileHoweverSpelled() throws {
        let dir = tmp.file("logs")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixtures.path("trust.ndjson"), toPath: dir + "/a.ndjson")
        try FileManager.default.createSymbolicLink(atPath: tmp.file("link.ndjson"), withDestinationPath: dir + "/a.ndjson")
        let d = tmp.file("s.db")
        let cwd = FileManager.default.currentDirectoryPath
        _ = FileManager.default.changeCurrentDirectoryPath(tmp.path)
        defer { _ = FileManager.default.changeCurrentDirectoryPath(cwd) }
        let first = try Run.pushlog(["--db", d, "ingest", "logs", "./logs/", dir + "/a.ndjson", "link.ndjson"])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(try count("SELECT count(*) FROM sources", db: d), 1)
        let again = try Run.pushlog(["--db", d, "ingest", "link.ndjson"])
        XCTAssertFalse(again.stderr.contains("a.ndjson"), "an unchanged file is not listed: \(again.stderr)")
        XCTAssertTrue(again.stderr.contains("0 files read, 1 unchanged"), again.stderr)
        XCTAssertTrue(try Run.pushlog(["--db", d, "ingest", "--verbose", "logs"]).stderr.contains("unchanged"))
        // A database of an older pushlog with two spellings of one file is merged once.
        let w = try Store.openForWriting(path: d)
        try w.exec(
            """
            UPDATE meta SET value = 0 WHERE key = 'sources_canonical';
            INSERT INTO sources(path, lines, n_send, rejects) VALUES ('logs/./a.ndjson', 3, 2, 1);
            UPDATE sends SET source_id = (SELECT max(id) FROM sources) WHERE rowid IN (SELECT rowid FROM sends LIMIT 2);
            """)
        _ = try Ingester(db: w)
        XCTAssertEqual(try count("SELECT count(*) FROM sources", db: d), 1)
        XCTAssertEqual(try count("SELECT count(DISTINCT source_id) FROM sends_v", db: d), 1)
        XCTAssertEqual(try count("SELECT n_send FROM sources", db: d), 13)
    }

    // MARK: empty results, listings, trace

    func testEmptyResultsSayWhy() throws {
        let r = try pushlog(["report", "gone", "--since", "2020-01-01", "--until", "2020-02-01", "--topic", "com.nope"])
        XCTAssertEqual(r.status, 0)
        XCTAssertTrue(
            r.stderr.contains("no records between 2020-01-01T00:00:00Z and 2020-02-01T00:00:00Z; the data spans 2026-10-10"), r.stderr)
        XCTAssertTrue(r.stderr.contains("topics seen: com.a, com.b"), r.stderr)
        let empty = tmp.file("empty.db")
        _ = try Store.openForWriting(path: empty)
        // An empty database: the page of the last week by the clock, zeros, and a note (as every report).
        let w = try Run.pushlog(["--db", empty, "report", "weekly"])
        XCTAssertEqual(w.status, 0)
        XCTAssertTrue(w.stderr.contains("no records") && !w.stdout.contains("1969") && !w.stdout.contains("1970"), w.stderr + w.stdout)
        let nothing = try Run.pushlog(["--db", tmp.file("never.db"), "ingest", "/nonexistent/logs"])
        XCTAssertEqual(nothing.status, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: tmp.file("never.db")))
        let bad = tmp.write("bad.db", "not a database at all, but long enough to look like a header of one")
        let e = try Run.pushlog(["--db", bad, "report", "gone"])
        XCTAssertEqual(e.status, 1)
        XCTAssertTrue(e.stderr.contains(bad), e.stderr)
    }

    func testReportsListsTheSectionsEachReportPrints() throws {
        let listing = try json(["reports"])
        for row in section(listing, "reports") {
            let name = try XCTUnwrap(row["name"] as? String)
            let args = name == "weekly" ? ["report", name, "--week", "2026-W45"] : ["report", name]
            let doc = try json(args)
            let printed = ((doc["sections"] as? [String: Any]) ?? [:]).keys.sorted()
            XCTAssertEqual((row["sections"] as? String)?.split(separator: " ").map(String.init).sorted(), printed, name)
        }
    }

    func testTraceAcceptsAnApnsIDPrefixAndPruneAsksOrCounts() throws {
        let r = try pushlog(["trace", "--format", "tsv", "0000000a"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("403 ExpiredProviderToken apns-id 0000000a-0000-4000-8000-00000000000a"), r.stdout)
        XCTAssertEqual(try pushlog(["trace", "0000"]).status, 2, "ambiguous prefix: give more characters")
        let dry = try pushlog(["prune", "--before", "2026-11-01", "--dry-run"])
        XCTAssertEqual(dry.status, 0)
        XCTAssertTrue(dry.stderr.contains("prune: 7 records before 2026-11-01T00:00:00Z (2 sends, 3 registers, 2 settings)"), dry.stderr)
        XCTAssertEqual(try count("SELECT count(*) FROM registers", db: db), 4, "a dry run deletes nothing")
    }
}
