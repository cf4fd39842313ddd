import Foundation
import XCTest
@testable import PushLogKit

/// The other tools' formats, each from a fixture written after the tool's documentation/source.
final class FormatTests: XCTestCase {
    func testSNSDeliveryStatus() throws {
        let tmp = TempDir(), db = tmp.file("p.db")
        let s = try ingest([Fixtures.path("sns.ndjson")], db: db)
        XCTAssertEqual(s.files[0].format, "sns")
        XCTAssertEqual(kinds(s), ["send": 4])
        XCTAssertEqual(s.skipped, 1)  // the GCM endpoint
        XCTAssertTrue(s.files[0].warnings.contains { $0.contains("sampl") })
        let r = try rows("SELECT rfc3339(time_ms), env, topic, status, reason, latency_ms, apns_ts FROM sends_v ORDER BY time_ms", db)
        XCTAssertEqual(
            r[0], [.text("2026-11-02T08:00:00.123Z"), .text("production"), .text("ShopApp"), .int(200), .null, .double(41), .null])
        XCTAssertEqual(r[1][1...4], [.text("sandbox"), .text("ShopApp"), .int(400), .text("BadDeviceToken")])
        XCTAssertEqual(r[2][3...4], [.int(400), .text("InvalidToken")])  // the legacy form, kept verbatim
        XCTAssertEqual(r[3][3...6], [.int(410), .text("Unregistered"), .double(38), .int(1793612000000)])
    }

    func testGorushAllShapes() throws {
        let tmp = TempDir(), db = tmp.file("p.db")
        let s = try ingest([Fixtures.path("gorush.log")], db: db)
        XCTAssertEqual(s.files[0].format, "gorush")
        XCTAssertEqual(kinds(s), ["send": 4])
        XCTAssertEqual(s.skipped, 1)  // android
        XCTAssertEqual(s.ignored, 1)  // the [GIN] access line
        XCTAssertEqual(s.rejects, 0)
        let r = try rows(
            "SELECT rfc3339(s.time_ms), s.status, s.reason, k.masked FROM sends_v s JOIN tokens k ON k.id = s.token_id ORDER BY s.time_ms",
            db)
        XCTAssertEqual(r.map { $0[1] }, [.int(200), .int(410), .int(400), .int(200)])  // status from the reason
        XCTAssertEqual(r[0][0], .text("2026-11-02T08:00:01Z"))  // logrus text time
        XCTAssertEqual(r[2][3], .int(1))  // masked token kept, flagged
    }

    func testPrettyArrayAndPrefixedJSON() throws {
        let tmp = TempDir(), db = tmp.file("p.db")
        let s = try ingest([Fixtures.path("pretty.json"), Fixtures.path("array.json"), Fixtures.path("prefixed.log")], db: db)
        XCTAssertEqual(s.files.map(\.format), ["json-document", "json-document", "ndjson"])
        XCTAssertEqual(s.rejects, 0)
        XCTAssertEqual(s.files.map(\.totalRecords), [2, 2, 2])
        // Pretty objects are numbered by their first line; braces inside strings do not confuse it.
        XCTAssertEqual(
            try rows("SELECT line, has_alert FROM sends_v WHERE source_id = 1 ORDER BY line", db),
            [[.int(1), .int(1)], [.int(10), .null]])
        // node-apn: `device` is the token; {device, error} is a transport failure, not an APNs response.
        XCTAssertEqual(
            try rows("SELECT status, reason, apns_ts, error FROM sends_v WHERE source_id = 2 ORDER BY time_ms", db),
            [[.int(410), .text("Unregistered"), .int(1793613600000), .null], [.null, .null, .null, .text("socket hang up")]])
        // The prefix time is used when the object has none; the object's own time wins otherwise.
        XCTAssertEqual(
            try rows("SELECT rfc3339(time_ms) FROM sends_v WHERE source_id = 3 ORDER BY time_ms", db),
            [[.text("2026-11-02T08:15:03.120Z")], [.text("2026-11-02T08:15:03.500Z")]])
        // Re-reading gives no duplicates.
        let again = try ingest([Fixtures.path("pretty.json")], db: tmp.file("q.db"))
        XCTAssertEqual(again.totalRecords, 2)
    }

    func testSameRecordsInThreeFormatsGiveIdenticalReports() throws {
        let tmp = TempDir()
        var docs: [String] = []
        for f in ["same.ndjson", "same.logfmt", "same.csv"] {
            let db = tmp.file(f + ".db")
            let s = try ingest([Fixtures.path(f)], db: db)
            XCTAssertEqual(s.rejects, 0, f)
            XCTAssertEqual(kinds(s), ["send": 3, "register": 1, "settings": 1, "receipt": 1], f)
            let c = try Store.openForReading(path: db)
            let runner = try ReportRunner(db: c)
            var text = ""
            for r in ["gone", "churn", "env-mismatch", "silent", "opt-out", "errors"] {
                text += OutputFormat.json.render(try runner.run(name: r, params: ReportParams()))
            }
            docs.append(text)
        }
        XCTAssertEqual(docs[0], docs[1])
        XCTAssertEqual(docs[0], docs[2])
    }

    func testAppleMetricsAndReconcile() throws {
        let tmp = TempDir(), db = tmp.file("p.db")
        _ = try ingest([Fixtures.path("same.ndjson"), Fixtures.path("apple-metrics.csv")], db: db)
        XCTAssertEqual(try count("SELECT sum(count) FROM apple_metrics", db: db), 7)
        let c = try Store.openForReading(path: db)
        let doc = try ReportRunner(db: c).run(name: "reconcile", params: ReportParams())
        let byDay = try XCTUnwrap(doc.section("by_day"))
        let alert = try XCTUnwrap(byDay.rows.first { $0[1] == .text("alert") })
        // Ours on 2026-11-02, alert: 2 responses (s-1 200, s-2 400), 1 accepted; Apple received 3.
        XCTAssertEqual(Array(alert[2...6]), [.int(2), .int(1), .int(3), .int(2), .int(1)])
        XCTAssertEqual(alert.last, .text("CHECK"))
    }

    func testMixedFolderDetectsEachFormat() throws {
        let tmp = TempDir()
        let dir = tmp.path + "/mixed"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let files = [
            "sns.ndjson": "sns", "gorush.log": "gorush", "pretty.json": "json-document", "same.logfmt": "logfmt",
            "same.csv": "csv", "apple-metrics.csv": "apple-metrics", "canonical.ndjson": "ndjson",
        ]
        for f in files.keys { try FileManager.default.copyItem(atPath: Fixtures.path(f), toPath: dir + "/" + f) }
        // One of them gzipped: detection happens after decompression.
        try gzipFile(Fixtures.path("gorush.log"), to: dir + "/gorush2.log.gz")
        let s = try ingest([dir], db: tmp.file("p.db"))
        for f in s.files {
            let name = (f.path as NSString).lastPathComponent
            XCTAssertEqual(f.format, name == "gorush2.log.gz" ? "gorush" : files[name] ?? "?", name)
        }
        XCTAssertEqual(try count("SELECT count(*) FROM sources WHERE format IS NULL", db: tmp.file("p.db")), 0)
    }

    func testByteOrderMarkedCSVIsRead() throws {
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
}

/// Input format names cross from the CLI into the ingest as an enum, with their spellings kept.
final class InputFormatTests: XCTestCase {
    func testNamesMapToBuiltInsOrDefinitions() throws {
        let lib = try FormatLibrary.load()
        XCTAssertEqual(InputFormat("json-document", library: lib), .builtIn(.jsonDocument))
        XCTAssertEqual(InputFormat("node-apn", library: lib), .builtIn(.nodeAPN))
        XCTAssertEqual(InputFormat("parse-server", library: lib), .defined("parse-server"))
        XCTAssertEqual(InputFormat("apple-metrics", library: lib).name, "apple-metrics")
        XCTAssertEqual(
            FormatDetector.names,
            ["ndjson", "json-document", "logfmt", "csv", "sns", "gorush", "node-apn", "node-apn-console", "apple-metrics"])
        XCTAssertEqual(FormatDetector.make(.builtIn(.nodeAPN), library: lib)?.name, "ndjson")
        XCTAssertEqual(FormatDetector.make(.defined("parse-server"), library: lib)?.name, "parse-server")
        XCTAssertNil(FormatDetector.make(.defined("no-such-format"), library: lib))
    }
}
