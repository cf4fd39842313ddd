import Foundation
import XCTest
@testable import PushLogKit

/// The incremental refresh of derived facts gives exactly the tables a full rebuild gives.
final class DerivedTests: XCTestCase {
    func dump(_ db: String) throws -> [String: [[SQLValue]]] {
        let c = try Store.openForReading(path: db)
        var out: [String: [[SQLValue]]] = [:]
        for (table, order) in [
            ("token_facts", "token_id"), ("token_runs", "device_id, start"), ("device_facts", "unit"),
            ("token_stale", "token_id, stale_from"),
            ("hourly_responses", "hour, topic_id, env_id"), ("hygiene_hourly", "hour, source_id, topic_id, env_id"),
            ("retry_links", "error_id, retry_id"), ("backoff_retries", "error_id"),
            ("background_hourly", "hour, token_id, topic_id, env_id"),
        ] {
            let s = try c.prepare("SELECT * FROM \(table) ORDER BY \(order)")
            var rows: [[SQLValue]] = []
            while try s.step() { rows.append((0..<s.columnCount).map { s.value($0) }) }
            // The order of a lags list is the order rows reached the group: not a fact, not compared.
            if table == "background_hourly" { rows = rows.map { r in r.dropLast() + [Self.sortedList(r.last!)] } }
            out[table] = rows
        }
        return out
    }

    static func sortedList(_ v: SQLValue) -> SQLValue {
        guard case .text(let list) = v else { return v }
        return .text(list.split(separator: ",").compactMap { Int($0) }.sorted().map(String.init).joined(separator: ","))
    }

    /// One database per run of `runs` (each incremental), against one full-refresh ingest of the
    /// same files in the same order (so token ids match).
    func assertIncrementalEqualsFull(_ runs: [[String]], _ tmp: TempDir, _ name: String) throws -> [String: [[SQLValue]]] {
        let incremental = tmp.file("\(name)-inc.db")
        for run in runs {
            let s = try ingest(run, db: incremental)
            XCTAssertFalse(s.failed)
        }
        let full = tmp.file("\(name)-full.db")
        let db = try Store.openForWriting(path: full)
        var opts = IngestOptions()
        opts.fullRefresh = true
        _ = try Ingester(db: db, options: opts).run(paths: runs.flatMap { $0 })
        let a = try dump(incremental), b = try dump(full)
        for table in b.keys.sorted() {
            XCTAssertEqual(a[table]?.count, b[table]?.count, "\(name): \(table)")
            XCTAssertTrue(a[table]! == b[table]!, "\(name): \(table) differs between incremental and full refresh")
        }
        return b
    }

    func testIncrementalRefreshEqualsFullRebuild() throws {
        let tmp = TempDir()
        let o = smallDemo(devices: 400)
        let result = try DemoGenerator(o).write(to: tmp.path + "/logs")
        // Day by day, as a provider would ingest them: every run after the first is incremental;
        // then the reports' own fixture, with its rotations, 410s and user-only quirks.
        let files = result.files.sorted {
            ($0 as NSString).lastPathComponent.split(separator: "-").suffix(3).joined()
                < ($1 as NSString).lastPathComponent.split(separator: "-").suffix(3).joined()
        }
        let fixture = [Fixtures.path("reports.ndjson")]
        let daily = stride(from: 0, to: files.count, by: 6).map { Array(files[$0..<min($0 + 6, files.count)]) } + [fixture]
        let b = try assertIncrementalEqualsFull(daily, tmp, "daily")
        XCTAssertGreaterThan(b["token_runs"]!.count, 100)
        XCTAssertGreaterThan(b["background_hourly"]!.count, 100)
        XCTAssertGreaterThan(b["retry_links"]!.count, 0)
        XCTAssertGreaterThan(b["backoff_retries"]!.count, 0)
        // Receipts a run later than their pushes: every provider file first, then the app's.
        let provider = files.filter { $0.contains("/provider/") }, app = files.filter { !$0.contains("/provider/") }
        XCTAssertFalse(provider.isEmpty || app.isEmpty)
        let late = [provider] + stride(from: 0, to: app.count, by: 7).map { Array(app[$0..<min($0 + 7, app.count)]) } + [fixture]
        let c = try assertIncrementalEqualsFull(late, tmp, "late")
        XCTAssertGreaterThan(c["background_hourly"]!.filter { $0[9] != .int(0) }.count, 50)  // received
    }

    /// A token registered twice in one millisecond: its latest registration is the one with the
    /// greater line hash (docs/reports.md), the same in every database, whatever order the lines came in.
    /// A response logged apart from its request takes every request field of `sends` from it
    /// (Schema.sendsRequestColumns), the payload's thread-id and relevance-score too.
    func testASplitResponseTakesTheRequestsFields() throws {
        let tmp = TempDir()
        let log = tmp.file("split.ndjson")
        try """
        {"time":"2026-11-02T08:02:00Z","event":"request","token":"aaaa1111bbbb2222cccc3333dddd4444eeee5555ffff6666aaaa7777bbbb8888","apns_id":"00000000-0000-4000-8000-00000000000a","env":"production","push_type":"alert","priority":10,"payload":{"aps":{"alert":"hi","thread-id":"t1","relevance-score":0.5}}}
        {"time":"2026-11-02T08:02:00.250Z","event":"response","apns_id":"00000000-0000-4000-8000-00000000000a","status":200}

        """.write(toFile: log, atomically: true, encoding: .utf8)
        let db = tmp.file("split.db")
        XCTAssertFalse(try ingest([log], db: db).failed)
        let c = try Store.openForReading(path: db)
        let s = try c.prepare("SELECT token_id IS NOT NULL, priority, has_alert, thread_id, relevance FROM sends WHERE kind = 2")
        XCTAssertTrue(try s.step())
        XCTAssertEqual((0..<5).map { s.value($0) }, [.int(1), .int(10), .int(1), .text("t1"), .double(0.5)])
    }

    func testLatestRegistrationOfATieIsTheGreaterLineHash() throws {
        let tmp = TempDir()
        let token = Self.token(7)
        let lines = [
            "{\"time\":\"2026-11-02T08:00:00Z\",\"event\":\"register\",\"token\":\"\(token)\",\"device\":\"d1\",\"env\":\"sandbox\",\"app_version\":\"2.0\"}",
            "{\"time\":\"2026-11-02T08:00:00Z\",\"event\":\"register\",\"token\":\"\(token)\",\"device\":\"d1\",\"env\":\"production\",\"app_version\":\"1.0\"}",
        ]
        var picked: [[SQLValue]] = []
        for (i, order) in [lines, lines.reversed()].enumerated() {
            let db = tmp.file("t\(i).db")
            _ = try ingest([tmp.write("r\(i).ndjson", order.joined(separator: "\n") + "\n")], db: db)
            let expected = try rows(
                "SELECT env_id, app_version_id FROM registers ORDER BY time_ms DESC, line_hash DESC LIMIT 1", db)
            let facts = try rows("SELECT reg_env_id, reg_app_version_id FROM token_facts", db)
            XCTAssertEqual(facts, expected)
            picked.append(
                try rows(
                    "SELECT e.name, a.name FROM token_facts f JOIN envs e ON e.id = f.reg_env_id JOIN app_versions a ON a.id = f.reg_app_version_id",
                    db)[0])
        }
        XCTAssertEqual(picked[0], picked[1], "the same registration wins whichever line came first")
    }

    /// Hours before 1970 are whole clock hours too (rounded down, as bucket_start rounds): a push
    /// at 23:30 on 1969-12-31 is not in hour 0, and a later run's push in that hour is counted in it.
    func testBackgroundHoursBefore1970AreClockHours() throws {
        let tmp = TempDir()
        func push(_ time: String, _ n: Int) -> String {
            "{\"time\":\"\(time)\",\"event\":\"send\",\"token\":\"\(Self.token(1))\",\"apns_id\":\"id-\(n)\",\"env\":\"production\","
                + "\"topic\":\"com.example.shop\",\"push_type\":\"background\",\"priority\":5,\"status\":200}\n"
        }
        let db = tmp.file("old.db")
        _ = try ingest([tmp.write("a.ndjson", push("1969-12-31T23:30:00Z", 1) + push("1970-01-01T00:30:00Z", 2))], db: db)
        XCTAssertEqual(
            try rows("SELECT hour, pushes FROM background_hourly ORDER BY hour", db), [[.int(-1), .int(1)], [.int(0), .int(1)]])
        let since = try Run.pushlog(["--db", db, "report", "silent", "--since", "1970-01-01T00:00:00Z", "--format", "csv"])
        XCTAssertTrue(since.stdout.contains("background_sends,accepted,token_hours") && since.stdout.contains("\n1,1,1,"), since.stdout)
        // A later run adds a push in each of those hours: counted as a full rebuild counts them.
        let s = try ingest([tmp.write("b.ndjson", push("1969-12-31T23:40:00Z", 3) + push("1969-12-31T22:30:00Z", 4))], db: db)
        XCTAssertFalse(s.failed)
        XCTAssertEqual(
            try rows("SELECT hour, pushes FROM background_hourly ORDER BY hour", db),
            [[.int(-2), .int(1)], [.int(-1), .int(2)], [.int(0), .int(1)]])
    }
}
