import Foundation
import XCTest

@testable import PushLogKit

/// A tool's answer read wherever it appears: inside syslog, journald, Docker and Kubernetes
/// prefixes and the logger layouts users configure, and in files whose other lines used to make
/// them refused or passed over. Each fixture is ingested into a real database.
extension FieldFormatTests {
    func testSygnalInJournaldWithAPythonLayoutAWrappedLineAndATraceback() throws {
        let r = try read("layout-sygnal-journald.log")
        XCTAssertEqual(r.format, "sygnal")
        XCTAssertEqual(
            r.records,
            [
                "2026-11-04T09:00:01.120Z 0 00c1 410 Unregistered token-gone",
                // wrapped before ": 400 BadDeviceToken", joined with its continuation
                "2026-11-04T09:00:02.230Z 0 00c2 400 BadDeviceToken token-bad",
                // the traceback's exception, for the apns-id sent under the same request id
                "2026-11-04T09:00:03.400Z 2 7c0e9a2b-1d3f-4e5a-9b6c-0000000000e1 400 BadDeviceToken token-bad",
            ])
        XCTAssertEqual(r.rejects, [])
        // The banner, the wrapped line's first half, the request, the failure and its
        // traceback's frames, the summary: passed over, each counted.
        XCTAssertEqual(r.ignored, 10)
    }

    /// gorush's status lines of 2018 (a succeeded push with no `|` before its message, tokens
    /// hidden in asterisks) read as answers; its command line's lines, which carry no time, make
    /// a file of rejects that say so, not a refused file.
    func testGorushOlderAndTimelessStatusLines() throws {
        let older = try read("layout-gorush-2018.log")
        XCTAssertEqual(older.format, "gorush")
        XCTAssertEqual(
            older.records,
            [
                "2026-11-05T08:00:01Z 0 **** 200  accepted", "2026-11-05T08:00:02Z 0 **** 400 BadDeviceToken token-bad",
                "2026-11-05T08:00:03Z 0 **** 410 Unregistered token-gone",
            ])
        let cli = try read("layout-gorush-cli.log")
        XCTAssertEqual(cli.format, "gorush")
        XCTAssertEqual(cli.records, [])
        XCTAssertEqual(cli.rejects.count, 2)
        XCTAssertTrue(cli.rejects.allSatisfy { $0.contains("gorush answer without a time") }, "\(cli.rejects)")
    }

    func testSygnalInDockersJSONFileLog() throws {
        let r = try read("layout-sygnal-docker.log")
        XCTAssertEqual(r.format, "sygnal")
        XCTAssertEqual(
            r.records,
            [
                "2026-11-04T09:10:00.100Z 0 00c3 410 Unregistered token-gone",
                "2026-11-04T09:10:01.300Z 2 7c0e9a2b-1d3f-4e5a-9b6c-0000000000e2 400 DeviceTokenNotForTopic token-bad",
            ])
        XCTAssertEqual(r.rejects, [])
    }

    func testPushyInKubernetesAndABurstOfAnswersNamingNoToken() throws {
        let tmp = TempDir(), db = tmp.file("p.db")
        let s = try ingest([Fixtures.path("layout-pushy-cri.log")], db: db)
        XCTAssertEqual(s.files[0].format, "pushy")
        XCTAssertEqual(kinds(s), ["send": 2, "response": 5])
        XCTAssertEqual(s.files[0].rejects, 0)
        XCTAssertEqual(try count("SELECT count(*) FROM sends_v WHERE token IS NULL AND reason = 'TooManyProviderTokenUpdates'", db: db), 5)
        // The burst is an incident the errors report shows.
        let run = try Run.pushlog(["--db", db, "report", "errors", "--since", "2026-11-04", "--until", "2026-11-05", "--format", "json"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let json = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        let summary = (json?["sections"] as? [String: Any])?["summary"] as? [[String: Any]] ?? []
        let burst = summary.first { $0["reason"] as? String == "TooManyProviderTokenUpdates" }
        XCTAssertEqual(burst?["responses"] as? Int, 5)
        XCTAssertEqual(burst?["category"] as? String, "auth")
    }

    func testGoLogFlagsAroundMattermostAndApns2InSyslog() throws {
        let m = try read("layout-mattermost-syslog.log")
        XCTAssertEqual(m.format, "mattermost-push-proxy")
        XCTAssertEqual(
            m.records,
            [
                "2026-11-04T09:30:00.412Z 2 5e9f1b2c-0000-4000-8000-0000000000f1 400 BadDeviceToken token-bad",
                "2026-11-04T09:30:01Z 2 5e9f1b2c-0000-4000-8000-0000000000f2 410 Unregistered token-gone",
            ])
        XCTAssertEqual(m.ignored, 1)
        let a = try read("layout-apns2-syslog.log")
        XCTAssertEqual(a.format, "apns2")
        XCTAssertEqual(
            a.records,
            [
                "2026-11-04T09:40:00.250Z 2 8c1d2e3f-0000-4000-8000-0000000000a1 410 Unregistered token-gone",
                "2026-11-04T09:40:01Z 2 8c1d2e3f-0000-4000-8000-0000000000a2 200  accepted",
                // Go's log wrote no time: the syslog prefix's
                "2026-11-04T09:40:02Z 2 8c1d2e3f-0000-4000-8000-0000000000a3 400 BadDeviceToken token-bad",
            ])
    }

    func testBarkServerPlaceholderURLsAreRejectsNamingBarkServer() throws {
        let r = try read("layout-bark-placeholder.log")
        XCTAssertEqual(r.format, "bark-server")
        XCTAssertEqual(r.records, ["2026-11-04T09:03:22Z 0 00c7  EOF transport"])
        XCTAssertEqual(r.rejects, ["1 bark-server line without a token", "2 bark-server line without a token"])
    }

    func testRpushLegacyBinaryProtocolCodesReadAsTheirStatus() throws {
        let r = try read("layout-rpush-legacy.log")
        XCTAssertEqual(r.format, "rpush")
        XCTAssertEqual(
            r.records,
            [
                "2026-11-04T09:50:00Z 0 00c8 200  accepted",
                "2026-11-04T09:50:01Z 2 3001 400 BadDeviceToken token-bad",
                "2026-11-04T09:50:03Z 2 3002 413 PayloadTooLarge request",
                // "Invalid token (8)" names no notification: a response whose token is unknown
                "2026-11-04T09:50:04Z 2  400 BadDeviceToken token-bad",
            ])
        XCTAssertEqual(r.ignored, 2)  // the reconnect notice and the backtrace
    }

    func testNodeAPNEntriesCutToObjectAreOneRejectEach() throws {
        let r = try read("layout-node-apn-cut.log")
        XCTAssertEqual(r.format, "node-apn-console")
        XCTAssertEqual(r.records, ["2026-11-04T10:00:01Z 0 00c9 410  token-gone"])
        let failed = "node-apn failed entry (util.inspect printed [Object]) without its token and status"
        XCTAssertEqual(r.rejects.filter { $0.contains(failed) }.map { String($0.prefix(1)) }, ["1", "1", "2", "2", "2", "2"])
        XCTAssertEqual(r.rejects.filter { $0.contains("node-apn sent entry") }.count, 1)
        // A whole list cut: how many entries it held is unknown, so one reject says so.
        let list = "3 node-apn failed list (util.inspect printed [Array]) without its entries"
        XCTAssertEqual(r.rejects.filter { $0.hasPrefix(list) }.count, 1)
        XCTAssertEqual(r.rejects.count, 8)
    }

    func testSNSSMSRecordWithAMaskedNumberIsSkipped() throws {
        let tmp = TempDir(), db = tmp.file("s.db")
        let s = try ingest([Fixtures.path("layout-sns-sms.ndjson")], db: db)
        XCTAssertEqual(s.files[0].format, "sns")
        XCTAssertEqual(s.skipped, 1)
        XCTAssertEqual(s.files[0].rejects, 0)
        XCTAssertEqual(kinds(s), ["send": 1])
    }

    func testLayoutTimeIsTheFirstDateAndTimeOfDay() {
        func first(_ s: String) -> String? {
            var t = s
            return t.withUTF8 { LayoutTime.first(in: $0) }.map { TimeFormat.rfc3339(ms: $0) }
        }
        XCTAssertEqual(first("2026-11-02 08:00:00,250 [12] INFO x - msg"), "2026-11-02T08:00:00.250Z")
        XCTAssertEqual(first("ERR: 2026/11/02 08:00:00.123456 f.go:1: msg"), "2026-11-02T08:00:00.123Z")
        XCTAssertEqual(first("error [2026-11-02 08:40:02.250 Z] msg"), "2026-11-02T08:40:02.250Z")
        XCTAssertEqual(first("2026-11-02T09:00:00.000+01:00 msg"), "2026-11-02T08:00:00Z")
        XCTAssertNil(first("08:00:05.500 [main] ERROR c.e.Sender - msg on 2026-11-02"))
        XCTAssertNil(first("build 20261102 08:00:00 id 1234-56-78"))
    }
}
