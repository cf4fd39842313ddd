import Foundation
import XCTest
@testable import PushLogKit

/// Other tools' logs as they really are: terminal output, colours, transport failures,
/// rejects per occurrence, other platforms, syslog prefixes. Fixtures: make-format-fixtures.py.
final class RealLogTests: XCTestCase {
    func testGorushTerminalFormatterWithColoursAndTransportFailures() throws {
        let tmp = TempDir(), db = tmp.file("p.db")
        let s = try ingest([Fixtures.path("gorush-terminal.log")], db: db)
        XCTAssertEqual(s.files[0].format, "gorush")
        XCTAssertEqual(kinds(s), ["send": 5])
        XCTAssertEqual(s.skipped, 1)  // the coloured android line, and only it
        XCTAssertEqual(s.ignored, 1)  // the start-up banner
        XCTAssertEqual(s.rejects, 2)  // relative time, no platform
        let r = try rows(
            """
            SELECT rfc3339(s.time_ms), k.token, s.status, s.reason, s.category, s.error
            FROM sends_v s JOIN tokens k ON k.id = s.token_id ORDER BY s.time_ms
            """, db)
        XCTAssertEqual(r.count, 5)
        XCTAssertEqual(r[0], [.text("2026-11-02T08:00:01Z"), .text(Self.token(1)), .int(200), .null, .text("accepted"), .null])
        XCTAssertEqual(
            r[1], [.text("2026-11-02T08:00:02Z"), .text(Self.token(2)), .int(400), .text("BadDeviceToken"), .text("token-bad"), .null])
        // Colours around the level, the kind and the platform: still an iOS 410.
        XCTAssertEqual(
            r[2], [.text("2026-11-02T08:00:03Z"), .text(Self.token(3)), .int(410), .text("Unregistered"), .text("token-gone"), .null])
        // Not APNs answers: no status, the cause in `error` (without Go's request line), category transport.
        XCTAssertEqual(
            r[3],
            [
                .text("2026-11-02T08:00:05Z"), .text(Self.token(4)), .null, .null, .text("transport"),
                .text("remote error: tls: revoked certificate"),
            ])
        XCTAssertEqual(
            r[4],
            [
                .text("2026-11-02T08:00:06Z"), .text(Self.token(5)), .null, .null, .text("transport"),
                .text("dial tcp 17.188.143.34:443: i/o timeout"),
            ])
        let rejects = try rows("SELECT line, reason FROM rejects ORDER BY line", db)
        XCTAssertEqual(rejects.map { $0[0] }, [.int(8), .int(9)])
        XCTAssertEqual(rejects[0][1], .text("gorush line without a time (logrus printed seconds since start; enable full timestamps)"))
        XCTAssertEqual(rejects[1][1], .text("gorush entry without a platform"))
        // Transport failures are not responses: gone counts 1 of 3 responses.
        let c = try Store.openForReading(path: db)
        let gone = try ReportRunner(db: c).run(name: "gone", params: ReportParams())
        XCTAssertTrue(OutputFormat.json.render(gone).contains("\"summary\":[{\"responses\":3,\"gone\":1,"))
    }

    func testTransportFailuresInErrorsReportAndWeeklyIncidents() throws {
        let tmp = TempDir(), db = tmp.file("p.db")
        // Ten minutes of accepted pushes, then five minutes where every attempt fails on TLS.
        var lines: [String] = []
        for i in 0..<10 {
            lines.append("INFO[2026/11/03 - 10:\(String(format: "%02d", i)):00] | succeeded-push | ios [\(Self.token(20 + i))] Hi")
        }
        for i in 0..<4 {
            lines.append(
                "ERRO[2026/11/03 - 10:1\(i):30] | failed-push | ios [\(Self.token(40 + i))] | Hi | Error Message: Post \"https://api.push.apple.com/3/device/\(Self.token(40 + i))\": remote error: tls: revoked certificate"
            )
        }
        _ = try ingest([tmp.write("g.log", lines.joined(separator: "\n") + "\n")], db: db)
        let c = try Store.openForReading(path: db)
        let runner = try ReportRunner(db: c)
        let errors = try runner.run(name: "errors", params: ReportParams(by: "day"))
        let summary = try XCTUnwrap(errors.section("summary"))
        XCTAssertEqual(summary.rows.count, 1)
        let cols = summary.columns
        let row = summary.rows[0]
        XCTAssertEqual(row[cols.firstIndex(of: "status")!], .null)
        XCTAssertEqual(row[cols.firstIndex(of: "reason")!], .text("remote error: tls: revoked certificate"))
        XCTAssertEqual(row[cols.firstIndex(of: "category")!], .text("transport"))
        XCTAssertEqual(row[cols.firstIndex(of: "responses")!], .int(4))
        XCTAssertEqual(row[cols.firstIndex(of: "tokens")!], .int(4))
        let weekly = try runner.run(name: "weekly", params: ReportParams(week: "2026-W45"))
        let incidents = try XCTUnwrap(weekly.section("incidents"))
        XCTAssertEqual(incidents.rows.count, 1)
        let ic = incidents.columns
        XCTAssertEqual(incidents.rows[0][ic.firstIndex(of: "window_start")!], .text("2026-11-03T10:10:00Z"))
        XCTAssertEqual(incidents.rows[0][ic.firstIndex(of: "window_end")!], .text("2026-11-03T10:15:00Z"))
        XCTAssertEqual(incidents.rows[0][ic.firstIndex(of: "reason")!], .text("transport: remote error: tls: revoked certificate"))
        XCTAssertEqual(incidents.rows[0][ic.firstIndex(of: "errors")!], .int(4))
    }

    func testRejectsCountPerOccurrenceAndNotAgainFromACopy() throws {
        let tmp = TempDir(), db = tmp.file("p.db")
        let s = try ingest([Fixtures.path("rejects-per-occurrence.ndjson")], db: db)
        XCTAssertEqual(s.rejects, 3)
        XCTAssertEqual(try rows("SELECT line, text FROM rejects ORDER BY line", db).map { $0[0] }, [.int(2), .int(4), .int(5)])
        // A re-delivered copy (another path, gzipped or not) adds no rejects and no records.
        let copy = tmp.file("copy.ndjson")
        try FileManager.default.copyItem(atPath: Fixtures.path("rejects-per-occurrence.ndjson"), toPath: copy)
        let again = try ingest([copy], db: db)
        XCTAssertEqual(again.rejects, 0)
        XCTAssertEqual(again.totalRecords, 0)
        XCTAssertEqual(try count("SELECT count(*) FROM rejects", db: db), 3)
    }

    func testRejectedMultiLineRecordsAreEachTheirOwn() throws {
        let tmp = TempDir(), db = tmp.file("p.db")
        let s = try ingest([Fixtures.path("pretty-rejects.json")], db: db)
        XCTAssertEqual(s.files[0].format, "json-document")
        XCTAssertEqual(s.totalRecords, 1)
        XCTAssertEqual(s.rejects, 2)
        let r = try rows("SELECT line, reason, text FROM rejects ORDER BY line", db)
        XCTAssertEqual(r.map { $0[0] }, [.int(7), .int(11)])  // numbered by their first line
        XCTAssertEqual(r[0][1], .text("missing required field 'token'"))
        XCTAssertEqual(r[1][1], .text("unknown event kind 'bogus'"))
        // The stored text is the start of the record, not its closing brace.
        guard case .text(let t0) = r[0][2], case .text(let t1) = r[1][2] else { return XCTFail("texts") }
        XCTAssertTrue(t0.hasPrefix("{ ") && t0.contains("08:01:00Z"), t0)
        XCTAssertTrue(t1.hasPrefix("{ ") && t1.contains("bogus"), t1)
    }

    func testSNSSMSRecordsAreAnotherPlatform() throws {
        let tmp = TempDir(), db = tmp.file("p.db")
        let s = try ingest([Fixtures.path("sns-sms.ndjson")], db: db)
        XCTAssertEqual(s.files[0].format, "sns")
        XCTAssertEqual(kinds(s), ["send": 1])
        XCTAssertEqual(s.skipped, 1)  // the SMS to a phone number
        XCTAssertEqual(s.rejects, 1)  // no destination at all: cannot tell the platform
        XCTAssertEqual(try rows("SELECT line, reason FROM rejects", db), [[.int(3), .text("SNS record without a destination")]])
        XCTAssertEqual(try rows("SELECT status, reason FROM sends_v", db), [[.int(410), .text("Unregistered")]])
    }

    func testGorushAPIResponseBodyAndNonPushJSONLines() throws {
        let tmp = TempDir(), db = tmp.file("p.db")
        let s = try ingest([Fixtures.path("gorush-api.log")], db: db)
        XCTAssertEqual(s.files[0].format, "gorush")
        XCTAssertEqual(kinds(s), ["send": 1])
        XCTAssertEqual(s.skipped, 1)  // the android entry of the body
        XCTAssertEqual(s.ignored, 1)  // the debug line
        XCTAssertEqual(s.rejects, 1)  // a body with no time anywhere
        XCTAssertEqual(
            try rows("SELECT rfc3339(time_ms), status, reason, line FROM sends_v", db),
            [[.text("2026-11-02T08:10:00Z"), .int(410), .text("Unregistered"), .int(2)]])
        XCTAssertEqual(
            try rows("SELECT line, reason FROM rejects", db),
            [[.int(3), .text("gorush API response entry without a time (the body has none: log it after a timestamp prefix)")]])
        // Read again: nothing new, the reject not doubled.
        let again = try ingest([Fixtures.path("gorush-api.log")], db: tmp.file("p.db"))
        XCTAssertEqual(again.totalRecords + again.rejects, 0)
    }

    func testGorushDebugLinesBeforeTheFirstPushStillDetectGorush() throws {
        let tmp = TempDir(), db = tmp.file("p.db")
        var lines = (0..<60).map {
            "{\"level\":\"debug\",\"msg\":\"Start push notification for iOS\",\"time\":\"2026-11-02T08:00:\(String(format: "%02d", $0))Z\"}"
        }
        let entry =
            "{\\\"type\\\":\\\"failed-push\\\",\\\"platform\\\":\\\"ios\\\",\\\"token\\\":\\\"\(Self.token(30))\\\",\\\"message\\\":\\\"Hi\\\",\\\"error\\\":\\\"Unregistered\\\"}"
        lines.append("{\"level\":\"error\",\"msg\":\"\(entry)\",\"time\":\"2026-11-02T08:01:00Z\"}")
        let s = try ingest([tmp.write("gorush.json.log", lines.joined(separator: "\n") + "\n")], db: db)
        XCTAssertEqual(s.files[0].format, "gorush")
        XCTAssertEqual(s.ignored, 60)
        XCTAssertEqual(s.rejects, 0)
        XCTAssertEqual(try rows("SELECT status, reason FROM sends_v", db), [[.int(410), .text("Unregistered")]])
    }

    func testSyslogPrefixTakesItsYearFromTheFileTime() throws {
        let tmp = TempDir(), db = tmp.file("p.db")
        let a = tmp.file("syslog-ndjson.log"), b = tmp.file("syslog-gorush.log")
        try FileManager.default.copyItem(atPath: Fixtures.path("syslog-ndjson.log"), toPath: a)
        try FileManager.default.copyItem(atPath: Fixtures.path("syslog-gorush.log"), toPath: b)
        let written = Date(timeIntervalSince1970: 1_793_836_800)  // 2026-11-05
        for p in [a, b] { try FileManager.default.setAttributes([.modificationDate: written], ofItemAtPath: p) }
        let s = try ingest([a, b], db: db)
        XCTAssertEqual(s.files.map(\.format), ["ndjson", "gorush"])
        XCTAssertEqual(s.rejects, 0)
        XCTAssertEqual(
            try rows("SELECT rfc3339(time_ms), status FROM sends_v WHERE source_id = 1 ORDER BY line", db),
            [
                [.text("2026-11-02T08:30:00Z"), .int(200)],  // the prefix time
                [.text("2026-11-02T08:29:59Z"), .int(410)],  // the record's own time wins
                [.text("2025-12-31T23:59:59Z"), .int(200)],  // later than the file: the year before
            ])
        XCTAssertEqual(
            try rows("SELECT rfc3339(time_ms), status, reason FROM sends_v WHERE source_id = 2 ORDER BY line", db),
            [
                [.text("2026-11-02T08:40:00Z"), .int(410), .text("ExpiredToken")],
                [.text("2026-11-02T08:40:01Z"), .int(200), .null],
            ])
    }

    func testANSIStrippingKeepsEveryTextFormat() throws {
        let tmp = TempDir(), db = tmp.file("p.db")
        let e = "\u{1B}"
        let p = tmp.write(
            "colour.logfmt", "\(e)[32mtime=2026-11-02T08:00:00Z\(e)[0m event=send token=\(Self.token(31)) status=\(e)[1m200\(e)[0m\n")
        let s = try ingest([p], db: db)
        XCTAssertEqual(s.files[0].format, "logfmt")
        XCTAssertEqual(s.totalRecords, 1)
        XCTAssertEqual(try rows("SELECT status FROM sends_v", db), [[.int(200)]])
    }

    func testTransportCause() {
        XCTAssertEqual(
            TransportError.cause("Post \"https://api.push.apple.com/3/device/ab\": context deadline exceeded"), "context deadline exceeded")
        XCTAssertEqual(
            TransportError.cause("Post https://api.push.apple.com/3/device/ab: read: connection reset by peer"),
            "read: connection reset by peer")
        XCTAssertEqual(
            TransportError.cause("dial tcp: lookup api.push.apple.com: no such host"), "dial tcp: lookup api.push.apple.com: no such host")
        XCTAssertTrue(ReasonTaxonomy.isAPNsReason("Unregistered"))
        XCTAssertTrue(ReasonTaxonomy.isAPNsReason("SomeFutureReason"))
        XCTAssertFalse(ReasonTaxonomy.isAPNsReason("context deadline exceeded"))
    }
}

extension RealLogTests {
    func testAGzippedCopyAddsNoRejects() throws {
        let tmp = TempDir(), db = tmp.file("p.db")
        _ = try ingest([Fixtures.path("rejects-per-occurrence.ndjson")], db: db)
        let gz = tmp.file("copy.ndjson.gz")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "gzip -c '\(Fixtures.path("rejects-per-occurrence.ndjson"))' > '\(gz)'"]
        try p.run()
        p.waitUntilExit()
        let again = try ingest([gz], db: db)
        XCTAssertEqual(again.rejects, 0)
        XCTAssertEqual(again.duplicates, 5)  // two records and three rejected lines, all seen before
        XCTAssertEqual(try count("SELECT count(*) FROM rejects", db: db), 3)
    }

    func testAGrownFileOfBundledRecordLinesResumesAfterTheLastWholeLine() throws {
        let tmp = TempDir(), db = tmp.file("p.db")
        let a = "2026-11-02T09:00:00Z {\"sent\":[{\"device\":\"\(Self.token(60))\"},{\"device\":\"\(Self.token(61))\"}],\"failed\":[]}\n"
        let b =
            "2026-11-02T09:01:00Z {\"sent\":[{\"device\":\"\(Self.token(62))\"}],\"failed\":[{\"device\":\"\(Self.token(63))\",\"status\":\"410\",\"response\":{\"reason\":\"Unregistered\"}}]}\n"
        let p = tmp.write("results.log", a)
        let db1 = try Store.openForWriting(path: db)
        var o = IngestOptions()
        o.batchLines = 1  // a commit after every item: the resume position must stay on whole lines
        XCTAssertEqual(try Ingester(db: db1, options: o).run(paths: [p]).totalRecords, 2)
        let h = try FileHandle(forWritingTo: URL(fileURLWithPath: p))
        h.seekToEndOfFile()
        h.write(b.data(using: .utf8)!)
        try h.close()
        let s = try Ingester(db: db1, options: o).run(paths: [p])
        XCTAssertEqual(s.files[0].resumedAfterLine, 1)
        XCTAssertEqual(s.totalRecords, 2)
        XCTAssertEqual(s.duplicates, 0)
        XCTAssertEqual(try count("SELECT count(*) FROM sends", db: db), 4)
    }

    func testGorushJSONEntryOfAnUnknownPlatformIsRejectedNotSkipped() throws {
        let tmp = TempDir(), db = tmp.file("p.db")
        let p = tmp.write(
            "g.log",
            """
            {"level":"error","msg":"{\\"type\\":\\"failed-push\\",\\"platform\\":\\"ios\\",\\"token\\":\\"\(Self.token(64))\\",\\"error\\":\\"Unregistered\\"}","time":"2026-11-02T08:00:00Z"}
            {"level":"error","msg":"{\\"type\\":\\"failed-push\\",\\"platform\\":\\"\\",\\"token\\":\\"\(Self.token(65))\\",\\"error\\":\\"Unregistered\\"}","time":"2026-11-02T08:00:01Z"}
            {"level":"error","msg":"{\\"type\\":\\"failed-push\\",\\"platform\\":\\"huawei\\",\\"token\\":\\"hms-1\\",\\"error\\":\\"x\\"}","time":"2026-11-02T08:00:02Z"}

            """)
        let s = try ingest([p], db: db)
        XCTAssertEqual(s.files[0].format, "gorush")
        XCTAssertEqual(s.totalRecords, 1)
        XCTAssertEqual(s.skipped, 1)
        XCTAssertEqual(try rows("SELECT line, reason FROM rejects", db), [[.int(2), .text("gorush entry without a platform")]])
    }
}
