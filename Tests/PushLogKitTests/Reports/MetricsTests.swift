import Foundation
import XCTest
@testable import PushLogKit

/// `pushlog metrics` on Tests/Fixtures/reports.ndjson (the figures of ReportTests), and its text
/// read back by a real exposition parser (Python's prometheus_client, both its Prometheus and
/// its OpenMetrics parser).
final class MetricsTests: XCTestCase {
    static var dbPath: String { IngestedFixtures.reports }

    /// Ingests before the first test.
    override class func setUp() { _ = dbPath }

    func families(since: Int64? = nil) throws -> [String: MetricFamily] {
        let db = try Store.openForReading(path: MetricsTests.dbPath)
        // now = the newest record (2026-11-07T10:00Z) + 90 s.
        let fs = try MetricsExport(engine: SQLiteCommandEngine(db: db)).collect(since: since, now: 1_794_045_600_000 + 90_000)
        return Dictionary(uniqueKeysWithValues: fs.map { ($0.name, $0) })
    }

    func value(_ f: [String: MetricFamily], _ name: String, _ labels: [String: String] = [:]) -> Double? {
        f[name]?.samples.first { s in Dictionary(uniqueKeysWithValues: s.labels) == labels }?.value
    }

    func testFiguresOnTheReportsFixture() throws {
        let f = try families()
        let app = ["topic": "com.example.app", "env": "production"]
        XCTAssertEqual(value(f, "pushlog_responses", app), 17)
        XCTAssertEqual(value(f, "pushlog_accepted_responses", app), 9)  // id-1, 2, 6, 9, 10, 11, 12, 13, 15
        XCTAssertEqual(value(f, "pushlog_gone_responses", app), 4)  // id-3 twice, id-5, id-17
        // The gone and weekly reports' figures, rounded as they print them.
        XCTAssertEqual(value(f, "pushlog_gone_rate"), 0.235294)  // 4 / 17
        XCTAssertEqual(value(f, "pushlog_accepted_share"), 0.529412)  // 9 / 17
        // The 8 errors by category: 4 token-gone, 2 BadDeviceToken, one 429, one 403 env key.
        XCTAssertEqual(value(f, "pushlog_error_responses", app.merging(["category": "token-gone"]) { $1 }), 4)
        XCTAssertEqual(value(f, "pushlog_error_responses", app.merging(["category": "token-bad"]) { $1 }), 2)
        XCTAssertEqual(value(f, "pushlog_error_responses", app.merging(["category": "rate"]) { $1 }), 1)
        XCTAssertEqual(value(f, "pushlog_error_responses", app.merging(["category": "env-config"]) { $1 }), 1)
        // Every category an APNs answer can fall in has its series, 0 when none did.
        XCTAssertEqual(value(f, "pushlog_error_responses", app.merging(["category": "server"]) { $1 }), 0)
        XCTAssertEqual(f["pushlog_error_responses"]?.samples.count, 8)
        // As the silent and env-mismatch reports give them (ReportTests).
        XCTAssertEqual(value(f, "pushlog_background_over_budget_sends"), 2)
        XCTAssertEqual(value(f, "pushlog_background_over_budget_share"), 0.333333)
        XCTAssertEqual(value(f, "pushlog_mismatched_sends"), 1)
        XCTAssertEqual(value(f, "pushlog_too_many_requests"), 1)
        // The turn-off rate needs a window start (opt-out's turn_off_rate has no value without one).
        XCTAssertNil(f["pushlog_turn_off_rate"])
        XCTAssertEqual(value(f, "pushlog_rejected_lines"), 0)
        // The newest record of each kind and its age: sends stopped on Tuesday while settings went on.
        XCTAssertEqual(value(f, "pushlog_newest_record_timestamp_seconds", ["kind": "settings"]), 1_794_045_600)
        XCTAssertEqual(value(f, "pushlog_seconds_since_newest_record", ["kind": "settings"]), 90)
        XCTAssertEqual(value(f, "pushlog_newest_record_timestamp_seconds", ["kind": "send"]), 1_793_786_400)
        XCTAssertEqual(value(f, "pushlog_seconds_since_newest_record", ["kind": "send"]), 1_794_045_690 - 1_793_786_400)
        XCTAssertEqual(value(f, "pushlog_newest_record_timestamp_seconds", ["kind": "register"]), 1_793_696_400)
        XCTAssertNil(value(f, "pushlog_newest_record_timestamp_seconds", ["kind": "unregister"]), "no unregister record at all")
        XCTAssertNil(f["pushlog_window_start_timestamp_seconds"])

        // A window from Wednesday: one response (id-17, a 410). On at its start: dev1, dev2, dev5,
        // dev6 (opted in on Monday; dev4 opted in on Thursday); dev1 turned off on Wednesday.
        let wed = try families(since: TimeArgument.parse("2026-11-04")!)
        XCTAssertEqual(value(wed, "pushlog_responses", app), 1)
        XCTAssertEqual(value(wed, "pushlog_gone_rate"), 1)
        XCTAssertEqual(value(wed, "pushlog_turn_off_rate"), 0.25)
        XCTAssertEqual(value(wed, "pushlog_window_start_timestamp_seconds"), 1_793_750_400)
        // Nothing answered after Friday: the rates are absent (no value over no responses), the
        // counts are 0, not vanished series.
        let late = try families(since: TimeArgument.parse("2026-11-08")!)
        XCTAssertNil(late["pushlog_gone_rate"])
        XCTAssertEqual(value(late, "pushlog_responses", app), 0)
        XCTAssertEqual(value(late, "pushlog_gone_responses", app), 0)
        XCTAssertEqual(value(late, "pushlog_error_responses", app.merging(["category": "token-gone"]) { $1 }), 0)
    }

    /// A topic logged as an empty string is one series, not that and a phantom '(none)' at 0.
    func testKnownTopicsAreNamedAsTheCountsNameThem() throws {
        let tmp = TempDir()
        let line =
            "{\"time\":\"2026-11-02T10:00:00Z\",\"event\":\"send\",\"token\":\"\(String(repeating: "d", count: 64))\",\"status\":200,\"topic\":\"\"}\n"
        let db = tmp.file("m.db")
        _ = try ingest([tmp.write("e.ndjson", line)], db: db)
        let fs = try MetricsExport(engine: SQLiteCommandEngine(db: try Store.openForReading(path: db))).collect(since: nil)
        let responses = try XCTUnwrap(fs.first { $0.name == "pushlog_responses" })
        XCTAssertEqual(responses.samples.count, 1, "\(responses.samples)")
        XCTAssertEqual(responses.samples.first?.value, 1)
    }

    func testRendererEscapesLabels() {
        let f = MetricFamily(name: "x", help: "a\\b\nc", samples: [([("topic", "a\"b\\c\nd\u{1b}")], 0.25), ([], 3)])
        XCTAssertEqual(
            OpenMetricsRenderer.render([f]),
            """
            # HELP x a\\\\b\\nc
            # TYPE x gauge
            x{topic="a\\"b\\\\c\\nd?"} 0.25
            x 3
            # EOF

            """)
    }

    /// Runs Python on the text: both parsers must accept it and give back every family, its
    /// type, labels and values. Skipped only when python3 itself is missing.
    func testOutputParsesWithPrometheusClient() throws {
        // The python3 on PATH first: the one `python3 -m pip install` (in .ci/run) installed into.
        let dirs =
            (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init) + ["/usr/local/bin", "/usr/bin"]
        let python = dirs.map { $0 + "/python3" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let python else { throw XCTSkip("python3 is not installed: cannot check the exposition with prometheus_client") }
        let tmp = TempDir()
        let prom = tmp.file("pushlog.prom")
        // Through the CLI and -o, as the textfile collector would get it.
        let r = try Run.pushlog(["--db", MetricsTests.dbPath, "metrics", "-o", prom])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "")
        let attrs = try FileManager.default.attributesOfItem(atPath: prom)
        XCTAssertEqual((attrs[.posixPermissions] as? NSNumber)?.intValue, 0o644)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: tmp.path).filter { $0.contains(".tmp.") }, [])
        // A label value with a quote, a backslash and a newline must survive too.
        let tricky = OpenMetricsRenderer.render([MetricFamily(name: "pushlog_t", help: "h", samples: [([("topic", "a\"b\\c\nd")], 1.5)])])
        let trickyPath = tmp.write("tricky.prom", tricky)
        let script = tmp.write(
            "parse.py",
            """
            import json, sys
            try:
                from prometheus_client.parser import text_string_to_metric_families as prom
                from prometheus_client.openmetrics.parser import text_string_to_metric_families as om
            except ImportError:
                print("prometheus_client is missing: pip install prometheus_client (.ci/run does)", file=sys.stderr)
                sys.exit(3)
            out = {}
            for path in sys.argv[1:]:
                text = open(path).read()
                a = [(f.name, f.type, [(s.name, s.labels, s.value) for s in f.samples]) for f in prom(text)]
                b = [(f.name, f.type, [(s.name, s.labels, s.value) for s in f.samples]) for f in om(text)]
                assert a == b, (a, b)
                out[path] = {name: {"type": t, "samples": [[l, v] for (_, l, v) in s]} for (name, t, s) in a}
            print(json.dumps(out))
            """)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: python)
        p.arguments = [script, prom, trickyPath]
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            return XCTFail("the exposition parsers refused the output (status \(p.terminationStatus)): \(e)")
        }
        let parsed = try XCTUnwrap(try JSONSerialization.jsonObject(with: o) as? [String: [String: [String: Any]]])
        let main = try XCTUnwrap(parsed[prom])
        let expected = try families()
        XCTAssertEqual(Set(main.keys), Set(expected.keys))
        for (name, fam) in main {
            XCTAssertEqual(fam["type"] as? String, "gauge", name)
            XCTAssertNotNil(expected[name], name)
        }
        let responses = try XCTUnwrap(main["pushlog_responses"]?["samples"] as? [[Any]])
        XCTAssertEqual(responses.first?[0] as? [String: String], ["topic": "com.example.app", "env": "production"])
        XCTAssertEqual(responses.first?[1] as? Double, 17)
        let errors = try XCTUnwrap(main["pushlog_error_responses"]?["samples"] as? [[Any]])
        XCTAssertEqual(errors.count, 8)
        XCTAssertEqual((main["pushlog_gone_rate"]?["samples"] as? [[Any]])?.first?[1] as? Double, 0.235294)
        let t = try XCTUnwrap(parsed[trickyPath]?["pushlog_t"]?["samples"] as? [[Any]])
        XCTAssertEqual(t.first?[0] as? [String: String], ["topic": "a\"b\\c\nd"])
        XCTAssertEqual(t.first?[1] as? Double, 1.5)
    }

    func testUsageErrors() throws {
        XCTAssertEqual(try Run.pushlog(["--db", MetricsTests.dbPath, "metrics", "--since", "soon"]).status, 2)
        XCTAssertEqual(try Run.pushlog(["--db", MetricsTests.dbPath, "metrics", "extra"]).status, 2)
        XCTAssertEqual(try Run.pushlog(["--db", MetricsTests.dbPath, "metrics", "--format", "json"]).status, 2)
        XCTAssertEqual(
            try Run.pushlog(["--db", MetricsTests.dbPath, "metrics", "--since", "2026-11-05", "--until", "2026-11-04"]).status, 2)
    }
}
