import Foundation
import XCTest
@testable import PushLogKit

/// The built-in formats on lines shaped as the tools write them (their logging calls at the
/// versions people run, and what users paste): every APNs answer is a record, every other line
/// is passed over (counted as ignored), and an answer that lacks what a record needs is a reject
/// that names the format.
final class FieldFormatTests: XCTestCase {
    /// One fixture read alone: its format, its records as text (time, kind, token number or
    /// apns-id, status, reason or error, category), ignored lines and rejects.
    struct Read {
        let format: String
        let records: [String]
        let ignored: Int
        let rejects: [String]
    }

    func read(_ fixture: String) throws -> Read {
        let tmp = TempDir(), db = tmp.file("f.db")
        let s = try ingest([Fixtures.path(fixture)], db: db)
        let recs = try rows(
            """
            SELECT rfc3339(time_ms), kind, coalesce(substr(token, 1, 4), apns_id, ''), coalesce(status, ''),
                   coalesce(reason, error, ''), category
            FROM sends_v ORDER BY time_ms, id
            """, db
        ).map { r in r.map(Self.text).joined(separator: " ") }
        let rej = try rows("SELECT line, reason FROM rejects ORDER BY line", db).map { r in r.map(Self.text).joined(separator: " ") }
        return Read(format: s.files[0].format, records: recs, ignored: s.files[0].ignored, rejects: rej)
    }

    static func text(_ v: SQLValue) -> String {
        switch v {
        case .int(let i): return String(i)
        case .text(let t): return t
        case .null: return "-"
        default: return "\(v)"
        }
    }

    func testRpushEveryPrefixAndFailureShape() throws {
        let r = try read("rpush-field.log")
        XCTAssertEqual(r.format, "rpush")
        XCTAssertEqual(
            r.records,
            [
                "2026-11-03T09:00:01Z 0 0090 200  accepted",
                "2026-11-03T09:00:02Z 2 2002 400 BadDeviceToken token-bad",
                "2026-11-03T09:00:03Z 0 0091 200  accepted",
                "2026-11-03T09:00:04Z 2 2004 410 Unregistered token-gone",
                "2026-11-03T09:00:05Z 2 2005 503 ServiceUnavailable server",
                "2026-11-03T09:00:06Z 0 0092 200  accepted",
            ])
        // The banner, the retry notice, and the other services' failure and FCM delivery.
        XCTAssertEqual(r.ignored, 4)
        XCTAssertEqual(r.rejects, [])
    }

    func testPushyRejectionsAsApplicationsLogThem() throws {
        let r = try read("pushy-field.log")
        XCTAssertEqual(r.format, "pushy")
        XCTAssertEqual(
            r.records,
            [
                "2026-11-03T09:00:02.200Z 0 0094 400 BadDeviceToken token-bad",
                "2026-11-03T10:00:01.100Z 0 0093 200  accepted",
                "2026-11-03T10:00:03.300Z 0 0095 400 TopicDisallowed request",
                // naming no token: a response whose token is unknown
                "2026-11-03T10:00:04.400Z 2  429 TooManyProviderTokenUpdates auth",
            ])
        XCTAssertEqual(r.ignored, 2)
        XCTAssertEqual(r.rejects, ["7 pushy line without a time"])
    }

    func testParseServerLogFilesAndConsoleLines() throws {
        let r = try read("parse-server-field.log")
        XCTAssertEqual(r.format, "parse-server")
        XCTAssertEqual(
            r.records,
            [
                "2026-11-03T16:00:00.100Z 0 00ad 200  accepted",
                "2026-11-03T16:00:00.200Z 0 00ae 400 BadDeviceToken token-bad",
                "2026-11-03T16:00:00.300Z 0 00af  Error: read ECONNRESET transport",
            ])
        XCTAssertEqual(r.ignored, 1)
        XCTAssertEqual(r.rejects, ["5 parse-server line without a time"])
    }

    func testSygnalOwnLinesAndSygnalWithAioapns() throws {
        let s = try read("sygnal.log")
        XCTAssertEqual(s.format, "sygnal")
        XCTAssertEqual(
            s.records,
            [
                "2026-11-03T11:00:01.300Z 0 0096 410 Unregistered token-gone",
                "2026-11-03T11:00:02.300Z 0 0097 400 BadDeviceToken token-bad",
            ])
        XCTAssertEqual(s.ignored, 3)  // the banner and the two request lines
        // With aioapns's lines in the log, each answer is read once, from aioapns's line.
        let a = try read("aioapns-sygnal.log")
        XCTAssertEqual(a.format, "aioapns")
        XCTAssertEqual(
            a.records,
            [
                "2026-11-03T11:10:01.250Z 2 0c6d7e8f-0000-4000-8000-00000000c003 410 Unregistered token-gone",
                "2026-11-03T11:10:02.250Z 2 0c6d7e8f-0000-4000-8000-00000000c004 400 BadTopic request",
            ])
        XCTAssertEqual(a.rejects, ["10 aioapns line without a time"])
    }

    func testMattermostPushProxyGoLogStructuredAndJSON() throws {
        let r = try read("mattermost-push-proxy.log")
        XCTAssertEqual(r.format, "mattermost-push-proxy")
        XCTAssertEqual(
            r.records,
            [
                "2026-11-03T12:00:01Z 2 7a7b7c7d-0000-4000-8000-00000000d001 400 BadDeviceToken token-bad",
                "2026-11-03T12:00:02Z 2 7a7b7c7d-0000-4000-8000-00000000d002 410 Unregistered token-gone",
                "2026-11-03T12:00:03Z 0 0099  read tcp 10.0.0.5:41234->17.188.0.1:443: read: connection reset by peer transport",
                "2026-11-03T12:00:04.250Z 2 7a7b7c7d-0000-4000-8000-00000000d003 429 TooManyRequests rate",
            ])
        XCTAssertEqual(r.ignored, 3)
        let j = try read("mattermost-push-proxy.json")
        XCTAssertEqual(j.format, "mattermost-push-proxy")
        XCTAssertEqual(
            j.records,
            [
                "2026-11-03T10:10:00.200Z 2 7a7b7c7d-0000-4000-8000-00000000d005 500 InternalServerError server",
                "2026-11-03T12:10:00.100Z 2 7a7b7c7d-0000-4000-8000-00000000d004 400 DeviceTokenNotForTopic token-bad",
            ])
        XCTAssertEqual(j.ignored, 1)
    }

    func testGoApns2ResultsAndAnUntimedOne() throws {
        let r = try read("apns2.log")
        XCTAssertEqual(r.format, "apns2")
        XCTAssertEqual(
            r.records,
            [
                "2026-11-03T13:00:01Z 2 8c1d2e3f-0000-4000-8000-00000000e001 400 BadDeviceToken token-bad",
                "2026-11-03T13:00:02.500Z 2 8c1d2e3f-0000-4000-8000-00000000e002 200  accepted",
                "2026-11-03T13:00:03Z 2 8c1d2e3f-0000-4000-8000-00000000e003 410 Unregistered token-gone",
                "2026-11-03T13:00:04Z 2 8c1d2e3f-0000-4000-8000-00000000e004 200  accepted",
            ])
        XCTAssertEqual(r.rejects, ["6 apns2 line without a time"])
    }

    func testBarkServerTransportFailuresAndRefusalsWithoutAToken() throws {
        let r = try read("bark-server.log")
        XCTAssertEqual(r.format, "bark-server")
        XCTAssertEqual(
            r.records,
            [
                "2026-11-03T13:00:01Z 0 009a  EOF transport",
                "2026-11-03T13:00:02Z 0 009b  read tcp 172.17.0.2:40000->17.188.0.2:443: read: connection reset by peer transport",
                // the refusals name no token: responses whose token is unknown
                "2026-11-03T13:00:03Z 2  400 BadDeviceToken token-bad",
                "2026-11-03T13:00:04Z 2  403 ExpiredProviderToken auth",
            ])
        XCTAssertEqual(r.ignored, 1)  // a success names no device
        XCTAssertEqual(r.rejects, [])
    }

    func testGaurunAcceptedPushIsNotAnAPNsAnswer() throws {
        let r = try read("gaurun.log")
        XCTAssertEqual(r.format, "gorush")
        XCTAssertEqual(
            r.records,
            [
                "2026-11-03T14:00:01Z 0 009c 200  accepted",
                "2026-11-03T14:00:03Z 0 009d 410 Unregistered token-gone",
                "2026-11-03T14:00:04Z 0 009e 400 BadDeviceToken token-bad",
            ])
        XCTAssertEqual(r.ignored, 3)  // two accepted-push, one disabled-push
    }

    /// A file whose every record lacks its time is still in a format pushlog recognises: each
    /// record is a reject that names the format and what is missing, and the file is not refused.
    func testUntimedRecordsOfARecognisedFormatAreRejectsNotARefusal() throws {
        let tmp = TempDir(), db = tmp.file("u.db")
        let apns2 = tmp.write(
            "apns2.out",
            "400 8c1d2e3f-0000-4000-8000-00000000e005 BadDeviceToken\n200 8c1d2e3f-0000-4000-8000-00000000e006 \n")
        let nodeAPN = tmp.write("results.log", "{\"sent\":[{\"device\":\"\(Self.token(160))\"}],\"failed\":[]}\n")
        let s = try ingest([apns2, nodeAPN], db: db)
        XCTAssertEqual(s.files.map(\.format), ["apns2", "ndjson"])
        XCTAssertEqual(s.files.map(\.rejects), [2, 1])
        XCTAssertEqual(
            try rows("SELECT source_id, line, reason FROM rejects ORDER BY source_id, line", db),
            [
                [.int(1), .int(1), .text("apns2 line without a time")], [.int(1), .int(2), .text("apns2 line without a time")],
                [
                    .int(2), .int(1),
                    .text("node-apn result without a time (the body has none: log it after a timestamp prefix or with a \"time\" key)"),
                ],
            ])
    }

    func testNodeAPNResultsAsConsoleLogPrintsThem() throws {
        let r = try read("node-apn-console.log")
        XCTAssertEqual(r.format, "node-apn-console")
        XCTAssertEqual(
            r.records,
            [
                "2026-11-03T15:00:00Z 0 00a1 200  accepted",
                "2026-11-03T15:00:00Z 0 00a2 400 BadDeviceToken token-bad",
                "2026-11-03T15:00:00Z 0 00a3 410  token-gone",  // response: [Object] hides the reason
                "2026-11-03T15:00:01Z 0 00a4 403 ExpiredProviderToken auth",
                "2026-11-03T15:00:02Z 0 00a5 400 BadDeviceToken token-bad",  // legacy code 8
                "2026-11-03T15:00:03Z 0 00a6  Error: read ECONNRESET transport",
            ])
        XCTAssertEqual(r.ignored, 2)
        XCTAssertEqual(r.rejects, [])
    }

    func testNodeAPNLegacyStatusCodes() throws {
        let r = try read("node-apn-legacy.ndjson")
        XCTAssertEqual(
            r.records,
            [
                "2026-11-03T15:10:00Z 0 00a7 400 BadDeviceToken token-bad",
                "2026-11-03T15:10:01Z 0 00a8 0 unknown unknown",
                "2026-11-03T15:10:02Z 0 00a9 503 Shutdown server",
                "2026-11-03T15:10:02Z 0 00aa 410 Unregistered token-gone",
            ])
        // node-apn 1.x's transmissionError handler: the code, then the Device with its token as a Buffer.
        let c = try read("node-apn-legacy.log")
        XCTAssertEqual(c.format, "node-apn-console")
        XCTAssertEqual(
            c.records, ["2026-11-03T15:20:00Z 0 00ab 400 BadDeviceToken token-bad", "2026-11-03T15:20:01Z 0 00ac 503 Shutdown server"])
    }

    /// Lines a format passes over are counted, and the summary shows the first of each file
    /// (verbose: the first few), so a line that was not read never vanishes unseen.
    func testTheSummaryShowsTheFirstLinePassedOver() throws {
        let tmp = TempDir(), db = tmp.file("i.db")
        let s = try ingest([Fixtures.path("rpush-field.log"), Fixtures.path("apns2.log")], db: db)
        XCTAssertEqual(s.files.map(\.ignored), [4, 1])
        XCTAssertEqual(s.files[0].ignoredLines.map(\.line), [1, 6, 9, 10])
        XCTAssertEqual(s.files[1].ignoredLines.map(\.text), ["2026/11/03 13:00:00 Sending to 2 devices"])
        let table = IngestReport.table(s)
        XCTAssertTrue(
            table.contains(
                "rpush-field.log: 4 lines passed over (not rpush records), the first:\n  line 1: [2026-11-03 09:00:00] [ios_prod] Starting 2 dispatchers..."
            ), table)
        XCTAssertFalse(table.contains("line 6:"), table)
        XCTAssertTrue(IngestReport.table(s, verbose: true).contains("\n  line 10: [2026-11-03 09:00:08][android_prod] 2008 sent to"))
        XCTAssertTrue(IngestReport.json(s).contains(#""ignored_lines":[{"line":1,"text":"2026/11/03 13:00:00 Sending to 2 devices"}]"#))
        // A second run reads nothing new and shows nothing passed over.
        XCTAssertEqual(try ingest([Fixtures.path("apns2.log")], db: db).files[0].ignoredLines.count, 0)
    }
}
