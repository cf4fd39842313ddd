import Foundation
import XCTest
@testable import PushLogKit

/// Alerting from cron: no terminal, only exit codes. A class of error new this hour breaches a
/// threshold on its change, a range without records is not healthy, and relative ranges
/// compared by bucket work as the README writes them.
final class AlertingTests: XCTestCase {
    static let token = String(repeating: "ab", count: 32)

    /// 10 accepted sends and one BadDeviceToken in the hour before `hour`; 10 accepted and 50
    /// ExpiredProviderToken in `hour`.
    static func incident(_ tmp: TempDir, hour: Int64) throws -> String {
        var lines: [String] = []
        func send(_ t: Int64, _ status: Int, _ reason: String?) {
            let r = reason.map { ",\"reason\":\"\($0)\"" } ?? ""
            lines.append(
                "{\"time\":\"\(TimeFormat.rfc3339(ms: t))\",\"event\":\"send\",\"token\":\"\(token)\",\"status\":\(status)\(r),\"topic\":\"com.example.app\"}"
            )
        }
        for i in 0..<10 { send(hour - 3_600_000 + Int64(i) * 60_000, 200, nil) }
        send(hour - 1_800_000, 400, "BadDeviceToken")
        for i in 0..<10 { send(hour + Int64(i) * 60_000, 200, nil) }
        for i in 0..<50 { send(hour + 600_000 + Int64(i) * 1000, 403, "ExpiredProviderToken") }
        let db = tmp.file("alert.db")
        _ = try ingest([tmp.write("sends.ndjson", lines.joined(separator: "\n") + "\n")], db: db)
        return db
    }

    func testANewErrorClassComparesAgainstZero() throws {
        let tmp = TempDir()
        let hour: Int64 = 1_793_800_800_000  // 2026-11-04T14:00Z
        let db = try Self.incident(tmp, hour: hour)
        let range = ["--since", TimeFormat.rfc3339(ms: hour), "--until", TimeFormat.rfc3339(ms: hour + 3_600_000)]
        let r = try Run.pushlog(
            ["--db", db, "report", "errors"] + range + ["--compare", "previous", "--format", "json", "--fail-if", "responses_change > 40"])
        XCTAssertEqual(r.status, 3, r.stderr)
        let doc = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
        let summary = (doc["sections"] as! [String: Any])["summary"] as! [[String: Any]]
        let expired = summary.first { $0["reason"] as? String == "ExpiredProviderToken" }!
        XCTAssertEqual(expired["responses_prev"] as? Int, 0)
        XCTAssertEqual(expired["responses_change"] as? Int, 50)
        // The reason that stopped: now 0, change -1.
        let bad = summary.first { $0["reason"] as? String == "BadDeviceToken" }!
        XCTAssertEqual(bad["responses"] as? Int, 0)
        XCTAssertEqual(bad["responses_change"] as? Int, -1)
        XCTAssertTrue(r.stderr.contains("responses_change = 50"), r.stderr)
        // The same in the buckets, and nothing null in a compared figure.
        let buckets = (doc["sections"] as! [String: Any])["by_bucket"] as! [[String: Any]]
        for row in buckets {
            for (k, v) in row where k.hasSuffix("_prev") || k.hasSuffix("_change") { XCTAssertFalse(v is NSNull, "\(k) in \(row)") }
        }
    }

    func testFailIfOverARangeWithoutRecordsExits4() throws {
        let tmp = TempDir()
        let hour: Int64 = 1_793_800_800_000
        let db = try Self.incident(tmp, hour: hour)
        // A stopped pusher: nothing since a day after the last send.
        let later = TimeFormat.rfc3339(ms: hour + 86_400_000)
        let r = try Run.pushlog(["--db", db, "report", "gone", "--since", later, "--fail-if", "gone_rate > 0.02"])
        XCTAssertEqual(r.status, 4, r.stderr)
        XCTAssertTrue(r.stderr.contains("no responses between"), r.stderr)
        // Records of another kind do not make a range of responses healthy; no --fail-if, no refusal.
        XCTAssertEqual(try Run.pushlog(["--db", db, "report", "gone", "--since", later]).status, 0)
        let ok = try Run.pushlog(["--db", db, "report", "gone", "--since", TimeFormat.rfc3339(ms: hour), "--fail-if", "gone_rate > 0.02"])
        XCTAssertEqual(ok.status, 0, ok.stderr)
        let churn = try Run.pushlog(["--db", db, "report", "churn", "--fail-if", "rotations > 0"])
        XCTAssertEqual(churn.status, 4, "no registrations at all: \(churn.stderr)")
    }

    func testRelativeRangesAlignToWholeBuckets() throws {
        let tmp = TempDir()
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let db = try Self.incident(tmp, hour: TimeUnit.hour.start(now) - 3_600_000)
        for args in [
            ["gone", "--since", "7d", "--by", "day", "--compare", "previous"], ["errors", "--since", "-1h", "--compare", "previous"],
            ["gone", "--since", "yesterday", "--compare", "previous"], ["churn", "--since", "30d", "--compare", "previous"],
            ["errors", "--since", "-2h", "--by", "5m"],
        ] {
            let r = try Run.pushlog(["--db", db, "report"] + args + ["--format", "json"])
            XCTAssertEqual(r.status, 0, "\(args): \(r.stderr)")
            let doc = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
            let params = doc["params"] as! [String: Any]
            let unit = TimeUnit(rawValue: params["aligned_to"] as! String)!
            let since = TimeArgument.parse(params["since"] as! String)!
            XCTAssertEqual(unit.start(since), since, "\(args): the range starts at a bucket's start")
        }
        // -1h on errors: the last whole hour and this one so far, against the two hours before.
        let r = try Run.pushlog(["--db", db, "report", "errors", "--since", "-1h", "--compare", "previous", "--format", "json"])
        let doc = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
        let params = doc["params"] as! [String: Any]
        let since = TimeArgument.parse(params["since"] as! String)!
        XCTAssertEqual(TimeArgument.parse(params["previous_since"] as! String)!, since - 2 * 3_600_000)
        // An absolute range that is not whole buckets is still refused: it names the fix.
        let odd = try Run.pushlog([
            "--db", db, "report", "gone", "--since", "2026-11-02T10:30", "--until", "2026-11-03T10:30", "--compare", "previous",
        ])
        XCTAssertEqual(odd.status, 2, odd.stderr)
    }

    /// Each bucket carries its denominator: a failing JWT reads share 1, a quiet healthy bucket
    /// has responses, an outage has bucket_responses 0.
    func testErrorBucketsCarryTheirDenominator() throws {
        let tmp = TempDir()
        let hour: Int64 = 1_793_800_800_000  // 2026-11-04T14:00Z
        let db = try Self.incident(tmp, hour: hour)
        let range = ["--since", TimeFormat.rfc3339(ms: hour), "--until", TimeFormat.rfc3339(ms: hour + 3_600_000)]
        let r = try Run.pushlog(["--db", db, "report", "errors"] + range + ["--by", "5m", "--format", "json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let doc = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
        let rows = (doc["sections"] as! [String: Any])["by_bucket"] as! [[String: Any]]
        func row(_ bucket: String) -> [String: Any] { rows.first { $0["bucket"] as? String == bucket }! }
        XCTAssertEqual(row("2026-11-04T14:00")["bucket_responses"] as? Int, 5)
        XCTAssertEqual(row("2026-11-04T14:00")["responses"] as? Int, 0)
        XCTAssertEqual(row("2026-11-04T14:10")["responses"] as? Int, 50)
        XCTAssertEqual(row("2026-11-04T14:10")["bucket_responses"] as? Int, 50)
        XCTAssertEqual(row("2026-11-04T14:10")["share"] as? Double, 1)
        XCTAssertEqual(row("2026-11-04T14:30")["bucket_responses"] as? Int, 0)
        XCTAssertTrue(row("2026-11-04T14:30")["share"] is NSNull)
        XCTAssertEqual(rows.count, 12, "every 5-minute bucket of the hour is a row")
        // gone takes the fine buckets too.
        XCTAssertEqual(try Run.pushlog(["--db", db, "report", "gone"] + range + ["--by", "5m"]).status, 0)
    }

    /// A bucket's own figures (its responses) stay the bucket's when a row is one-sided, and a
    /// rate over a period without traffic changes from 0, so no `--fail-if` reads null.
    func testOneSidedRowsKeepTheirBucketsFigures() throws {
        let tmp = TempDir()
        let (t, u) = (String(repeating: "a", count: 64), String(repeating: "b", count: 64))
        let lines = [
            "{\"time\":\"2026-11-03T10:00:00Z\",\"event\":\"send\",\"token\":\"\(t)\",\"status\":400,\"reason\":\"BadDeviceToken\",\"topic\":\"com.example.app\"}",
            "{\"time\":\"2026-11-03T11:00:00Z\",\"event\":\"send\",\"token\":\"\(u)\",\"status\":200,\"topic\":\"com.example.app\"}",
            "{\"time\":\"2026-11-04T14:00:00Z\",\"event\":\"send\",\"token\":\"\(t)\",\"status\":410,\"reason\":\"Unregistered\",\"topic\":\"com.example.app\"}",
            "{\"time\":\"2026-11-04T14:10:00Z\",\"event\":\"send\",\"token\":\"\(u)\",\"status\":200,\"topic\":\"com.other\"}",
            "{\"time\":\"2026-11-05T10:00:00Z\",\"event\":\"request\",\"token\":\"\(u)\",\"apns_id\":\"11111111-2222-3333-4444-555555555555\"}",
        ]
        let db = tmp.file("one-sided.db")
        _ = try ingest([tmp.write("s.ndjson", lines.joined(separator: "\n") + "\n")], db: db)
        let r = try Run.pushlog([
            "--db", db, "report", "errors", "--since", "2026-11-04", "--until", "2026-11-05", "--by", "day", "--compare", "previous",
            "--format", "json",
        ])
        let doc = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
        for row in (doc["sections"] as! [String: Any])["by_bucket"] as! [[String: Any]] {
            XCTAssertEqual(row["bucket_responses"] as? Int, 2, "\(row)")
            XCTAssertEqual(row["bucket_responses_prev"] as? Int, 2, "\(row)")
        }
        // By day, against a previous range that has responses: the day of a 410 against a day
        // without any, the rate's change counts from 0.
        let gone = try Run.pushlog([
            "--db", db, "report", "gone", "--since", "2026-11-04", "--until", "2026-11-06", "--by", "day", "--compare", "previous",
            "--fail-if", "gone_rate_change > 0.1", "--format", "json",
        ])
        XCTAssertEqual(gone.status, 3, gone.stderr)
        let days = (try JSONSerialization.jsonObject(with: Data(gone.stdout.utf8)) as! [String: Any])["sections"] as! [String: Any]
        let day = (days["by_bucket"] as! [[String: Any]]).first { $0["bucket"] as? String == "2026-11-04" }!
        XCTAssertEqual(day["responses_prev"] as? Int, 0, "a day without responses in a previous range with some: 0")
        // A filter that matches no response, and a range of requests without answers: no records.
        let nope = try Run.pushlog([
            "--db", db, "report", "gone", "--since", "2026-11-04", "--until", "2026-11-05", "--topic", "com.nope", "--fail-if", "gone > 0",
        ])
        XCTAssertEqual(nope.status, 4, nope.stderr)
        let requests = try Run.pushlog(["--db", db, "report", "gone", "--since", "2026-11-05", "--fail-if", "gone_rate > 0.02"])
        XCTAssertEqual(requests.status, 4, "requests are not answers: \(requests.stderr)")
    }

    /// A consumer reading CSV by position gets the same columns over any data: the columns of a
    /// compared report depend on the report and its options, never on the rows (first_seen of
    /// errors is a time, not a figure, even when no row holds one).
    func testComparedColumnsDoNotDependOnTheData() throws {
        let db = IngestedFixtures.reports
        let catalog = try QueryCatalog()
        /// Each section's name and header row.
        func headers(_ args: [String]) throws -> [String] {
            let r = try Run.pushlog(["--db", db, "report"] + args + ["--compare", "previous", "--format", "csv"])
            XCTAssertEqual(r.status, 0, "\(args): \(r.stderr)")
            let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            return zip(lines, lines.dropFirst()).filter { $0.0.hasPrefix("# ") }.map { $0.0 + ": " + $0.1 }
        }
        var compared = 0
        for def in catalog.reports where def.paramNames.contains("since") && def.paramNames.contains("until") {
            guard !Set(ReportRunner.sectionNames(def)).isDisjoint(with: ["summary", "by_bucket"]) else { continue }
            compared += 1
            let full = ["--since", "2026-11-02", "--until", "2026-11-09"], empty = ["--since", "2030-01-07", "--until", "2030-01-14"]
            var variants = [[def.name]]
            if let by = def.byValues?.first(where: { TimeUnit(rawValue: $0) == nil }) { variants.append([def.name, "--by", by]) }
            if def.byValues?.contains("day") == true { variants.append([def.name, "--by", "day"]) }
            for v in variants {
                let (a, b) = (try headers(v + full), try headers(v + empty))
                XCTAssertFalse(a.isEmpty, "\(v)")
                XCTAssertEqual(a, b, "\(v): the columns over data and over an empty range")
            }
        }
        XCTAssertGreaterThanOrEqual(compared, 6)
    }

    /// A fresh install has no previous week to compare with: `_prev` and `_change` are empty
    /// with a note, and a threshold on a change is not judged (exit 4), not breached.
    func testCompareWithoutABaselineIsNotAChangeFromZero() throws {
        let tmp = TempDir()
        let hour = TimeUnit.hour.start(Int64(Date().timeIntervalSince1970 * 1000)) - 3_600_000
        let db = try Self.incident(tmp, hour: hour)
        let args = ["--db", db, "report", "gone", "--since", "7d", "--by", "day", "--compare", "previous"]
        let r = try Run.pushlog(args + ["--fail-if", "gone_rate_change > 0.01", "--format", "json"])
        XCTAssertEqual(r.status, 4, r.stderr)
        XCTAssertTrue(r.stderr.contains("gone_rate_change has no baseline"), r.stderr)
        let doc = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
        XCTAssertTrue((doc["notes"] as? [String] ?? []).contains { $0.hasPrefix("no baseline") }, "\(doc)")
        let sections = doc["sections"] as! [String: Any]
        for name in ["summary", "by_bucket"] {
            for row in sections[name] as! [[String: Any]] {
                for (k, v) in row where k.hasSuffix("_prev") || k.hasSuffix("_change") {
                    XCTAssertTrue(v is NSNull, "\(name) \(k): \(row)")
                }
                XCTAssertNotNil(row["gone_rate_change"], "the columns stay")
            }
        }
        // A condition on this range's own figures is judged as ever; CSV says the note on stderr.
        XCTAssertEqual(try Run.pushlog(args + ["--fail-if", "gone > 100"]).status, 0)
        let csv = try Run.pushlog(args + ["--format", "csv"])
        XCTAssertTrue(csv.stderr.contains("no baseline"), csv.stderr)
        XCTAssertTrue(csv.stdout.contains("gone_rate_prev,gone_rate_change"), csv.stdout)
    }
}
