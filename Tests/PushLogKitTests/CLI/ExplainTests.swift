import Foundation
import XCTest
@testable import PushLogKit

/// `pushlog explain` on incidents planted in generated logs (the canonical NDJSON the demo
/// writes, with background noise of every kind): the binary must name the planted cause as the
/// top segment and its onset within one bucket, say nothing when nothing changed, and refuse a
/// window it cannot compare.
final class ExplainTests: XCTestCase {
    /// Four hours of logs: the baseline is the first two, the window the last two, and the
    /// incident starts 35 minutes into the window (a 5-minute bucket's start).
    static let start = TimeArgument.parse("2026-11-10T10:00:00Z")!
    static let windowStart = start + 7_200_000
    static let incidentAt = windowStart + 35 * 60_000
    static let windowEnd = start + 14_400_000

    enum Incident { case none, expiredJWT, sandboxBuild, throttledBackground, sourceStops, goneAfterRelease }

    /// Writes the logs of one scenario into `dir`: app.ndjson (registrations) and one file of
    /// sends per host (host-a, host-b). 300 devices on two topics and three app versions; about
    /// 12 sends a minute, 30 % background (a tenth of the devices at priority 10); noise: 500s,
    /// 410s, BadDeviceToken and a few 429s throughout.
    static func write(_ incident: Incident, to dir: TempDir, logsPriority: Bool = true) {
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func random() -> Double {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(seed >> 11) / Double(1 << 53)
        }
        func time(_ ms: Int64) -> String { TimeFormat.rfc3339(ms: ms) }
        func token(_ n: Int) -> String { String(repeating: String(format: "%08x", n &* 2_654_435_761 & 0xffff_ffff), count: 8) }
        let devices = 300
        let topics = ["com.example.app", "com.example.news"]
        let versions = ["5.0.0", "5.1.0", "5.2.0"]
        var app: [(Int64, String)] = []
        func register(_ t: Int64, device: Int, token tok: String, env: String, version: String) {
            app.append(
                (
                    t,
                    "{\"time\":\"\(time(t))\",\"event\":\"register\",\"token\":\"\(tok)\",\"device\":\"d\(device)\",\"user\":\"u\(device)\",\"env\":\"\(env)\",\"app_version\":\"\(version)\",\"topic\":\"\(topics[device % 2])\"}"
                ))
        }
        for d in 0..<devices {
            register(start - 86_400_000 + Int64(d) * 1000, device: d, token: token(d), env: "production", version: versions[d % 3])
        }
        // The release: a sandbox build (new tokens, registered as sandbox) or 5.4.0 (same tokens).
        let released = { (d: Int) in d % 5 == 0 }
        if incident == .sandboxBuild {
            for d in 0..<devices where released(d) {
                register(incidentAt - 60_000 + Int64(d), device: d, token: token(d + 10_000), env: "sandbox", version: "5.3.0-beta")
            }
        }
        if incident == .goneAfterRelease {
            for d in 0..<devices where released(d) {
                register(start - 3_600_000 + Int64(d), device: d, token: token(d), env: "production", version: "5.4.0")
            }
        }
        var hosts: [String: [(Int64, String)]] = ["host-a": [], "host-b": []]
        var t = start
        var n = 0
        while t < windowEnd {
            t += Int64(1 + random() * 9_000)
            n += 1
            let d = Int(random() * Double(devices))
            let background = random() < 0.3
            let priority = background ? (d % 10 == 0 ? 10 : 5) : 10
            let host = random() < 0.5 ? "host-a" : "host-b"
            var tok = token(d)
            var status = 200
            var reason: String?
            let r = random()
            if r < 0.005 {
                (status, reason) = (500, "InternalServerError")
            } else if r < 0.008 {
                (status, reason) = (410, "Unregistered")
            } else if r < 0.011 {
                (status, reason) = (400, "BadDeviceToken")
            } else if r < 0.013 && background {
                (status, reason) = (429, "TooManyRequests")
            }
            if t >= incidentAt {
                switch incident {
                case .none: break
                case .expiredJWT where d % 2 == 1: (status, reason) = (403, "ExpiredProviderToken")
                case .sandboxBuild where released(d):
                    tok = token(d + 10_000)
                    (status, reason) = (400, "BadDeviceToken")
                case .throttledBackground where background && priority == 10: (status, reason) = (429, "TooManyRequests")
                case .sourceStops where host == "host-b": continue
                case .goneAfterRelease where released(d) && random() < 0.6: (status, reason) = (410, "Unregistered")
                default: break
                }
            }
            var line = "{\"time\":\"\(time(t))\",\"event\":\"send\",\"token\":\"\(tok)\",\"apns_id\":\"\(UUID(seq: n))\""
            line += ",\"env\":\"production\",\"topic\":\"\(topics[d % 2])\",\"push_type\":\"\(background ? "background" : "alert")\""
            if logsPriority { line += ",\"priority\":\(priority)" }
            line += ",\"status\":\(status)" + (reason.map { ",\"reason\":\"\($0)\"" } ?? "") + "}"
            hosts[host]!.append((t, line))
        }
        _ = dir.write("app.ndjson", app.sorted { $0.0 < $1.0 }.map(\.1).joined(separator: "\n") + "\n")
        for (host, lines) in hosts { _ = dir.write(host + ".ndjson", lines.map(\.1).joined(separator: "\n") + "\n") }
    }

    /// Ingests a scenario and runs `explain` over the window as JSON.
    func explain(_ incident: Incident, _ options: [String] = [], logsPriority: Bool = true) throws -> (Run, [String: Any]) {
        let dir = TempDir()
        ExplainTests.write(incident, to: dir, logsPriority: logsPriority)
        let db = dir.file("x.db")
        let ingest = try Run.pushlog(["--db", db, "ingest", dir.path])
        XCTAssertEqual(ingest.status, 0, ingest.stderr)
        let run = try Run.pushlog(
            [
                "--db", db, "explain", "--since", TimeFormat.rfc3339(ms: ExplainTests.windowStart), "--until",
                TimeFormat.rfc3339(ms: ExplainTests.windowEnd), "--format", "json",
            ] + options)
        let json = (try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8))) as? [String: Any] ?? [:]
        return (run, json["sections"] as? [String: Any] ?? [:])
    }

    func summary(_ sections: [String: Any]) -> [String: Any] { (sections["summary"] as? [[String: Any]])?.first ?? [:] }

    /// The onset is the planted start's bucket or the one next to it (5-minute buckets).
    func assertOnset(_ sections: [String: Any], file: StaticString = #filePath, line: UInt = #line) {
        guard let text = summary(sections)["onset"] as? String, let onset = TimeArgument.parse(text) else {
            return XCTFail("no onset in \(summary(sections))", file: file, line: line)
        }
        XCTAssertLessThanOrEqual(abs(onset - ExplainTests.incidentAt), 300_000, "onset \(text)", file: file, line: line)
    }

    func assertTop(_ sections: [String: Any], _ parts: [String], file: StaticString = #filePath, line: UInt = #line) {
        let top = summary(sections)["top_segment"] as? String ?? ""
        for p in parts { XCTAssertTrue(top.contains(p), "top segment '\(top)' lacks \(p)", file: file, line: line) }
        XCTAssertEqual(summary(sections)["verdict"] as? String, "increase", file: file, line: line)
    }

    func testExpiredJWTOnOneTopic() throws {
        let (run, s) = try explain(.expiredJWT, logsPriority: false)
        XCTAssertEqual(run.status, 0, run.stderr)
        assertTop(s, ["reason=ExpiredProviderToken", "topic=com.example.news"])
        assertOnset(s)
        // The records do not log a priority: listed as such, never ranked.
        let dims = s["dimensions"] as? [[String: Any]] ?? []
        XCTAssertEqual(dims.first { $0["dimension"] as? String == "priority" }?["status"] as? String, "not observable: not in these logs")
        XCTAssertFalse((s["segments"] as? [[String: Any]] ?? []).contains { ($0["segment"] as? String ?? "").contains("priority") })
        let first = s["first_records"] as? [[String: Any]] ?? []
        XCTAssertEqual(first.first?["reason"] as? String, "ExpiredProviderToken")
        XCTAssertTrue((first.first?["trace"] as? String ?? "").hasPrefix("pushlog trace "))
        let top = (s["segments"] as? [[String: Any]])?.first { ($0["dimension"] as? String) == "topic" }
        XCTAssertEqual(top?["value"] as? String, "com.example.news", "the topic ranks above the other topic's noise")
    }

    func testSandboxBuildSentToProduction() throws {
        let (run, s) = try explain(.sandboxBuild)
        XCTAssertEqual(run.status, 0, run.stderr)
        assertTop(s, ["reason=BadDeviceToken", "app_version=5.3.0-beta"])
        assertOnset(s)
    }

    func testThrottledBackgroundAtPriority10() throws {
        let (run, s) = try explain(.throttledBackground, ["--metric", "throttled"])
        XCTAssertEqual(run.status, 0, run.stderr)
        assertTop(s, ["push_type=background", "priority=10"])
        assertOnset(s)
    }

    func testSourceThatStops() throws {
        let (run, s) = try explain(.sourceStops, ["--metric", "volume"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let top = summary(s)["top_segment"] as? String ?? ""
        XCTAssertTrue(top.hasPrefix("source=") && top.hasSuffix("host-b.ndjson"), top)
        XCTAssertEqual(summary(s)["verdict"] as? String, "decrease")
        assertOnset(s)
        let stopped = (s["onset"] as? [[String: Any]] ?? []).filter { $0["what"] as? String == "last record" }
        XCTAssertEqual(stopped.count, 1)
        XCTAssertTrue((stopped.first?["source"] as? String ?? "").hasSuffix("host-b.ndjson"))
        if let last = (stopped.first?["at"] as? String).flatMap({ TimeArgument.parse($0) }) {
            XCTAssertLessThan(last, ExplainTests.incidentAt)
            XCTAssertGreaterThan(last, ExplainTests.incidentAt - 120_000)
        } else {
            XCTFail("no last record")
        }
    }

    func testGoneWaveAfterRelease() throws {
        let (run, s) = try explain(.goneAfterRelease, ["--metric", "gone"])
        XCTAssertEqual(run.status, 0, run.stderr)
        assertTop(s, ["app_version=5.4.0"])
        assertOnset(s)
    }

    /// No incident: the noise is not attributed (no headline, no onset), exit 0.
    func testQuietWindowNamesNothing() throws {
        let (run, s) = try explain(.none)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(summary(s)["verdict"] as? String, "no clear change")
        XCTAssertNil(summary(s)["headline"] as? String)
        XCTAssertNil(summary(s)["onset"] as? String)
    }

    /// The account a terminal gets: the headline, the onset, the commands; within 80 columns.
    func testAccountFitsEightyColumns() throws {
        let dir = TempDir()
        ExplainTests.write(.expiredJWT, to: dir)
        let db = dir.file("x.db")
        XCTAssertEqual(try Run.pushlog(["--db", db, "ingest", dir.path]).status, 0)
        let at = TimeFormat.rfc3339(ms: ExplainTests.incidentAt + 20 * 60_000)
        let run = try Run.pushlog(["--db", db, "explain", "--at", at])
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertTrue(run.stdout.contains("of the increase is ExpiredProviderToken on com.example.news"), run.stdout)
        XCTAssertTrue(run.stdout.contains("pushlog trace "), run.stdout)
        XCTAssertTrue(run.stdout.contains("pushlog report errors --since"), run.stdout)
        for line in run.stdout.split(separator: "\n") { XCTAssertLessThanOrEqual(line.count, 80, String(line)) }
    }

    /// A window whose baseline holds no responses, an empty window, and a metric the logs do not
    /// carry: said on stderr, exit 4.
    func testNothingToCompareExits4() throws {
        let dir = TempDir()
        ExplainTests.write(.none, to: dir)
        let db = dir.file("x.db")
        XCTAssertEqual(try Run.pushlog(["--db", db, "ingest", dir.path]).status, 0)
        let first = TimeFormat.rfc3339(ms: ExplainTests.start)
        let noBaseline = try Run.pushlog(["--db", db, "explain", "--since", first, "--until", "2026-11-10T11:00:00Z"])
        XCTAssertEqual(noBaseline.status, 4)
        XCTAssertTrue(noBaseline.stderr.contains("no responses in the baseline"), noBaseline.stderr)
        let empty = try Run.pushlog(["--db", db, "explain", "--at", "2026-11-12T10:00:00Z"])
        XCTAssertEqual(empty.status, 4)
        XCTAssertTrue(empty.stderr.contains("nothing to explain"), empty.stderr)
        let latency = try Run.pushlog(["--db", db, "explain", "--at", "2026-11-10T13:00:00Z", "--metric", "latency"])
        XCTAssertEqual(latency.status, 4)
        XCTAssertTrue(latency.stderr.contains("responses with a latency"), latency.stderr)
        let bad = try Run.pushlog(["--db", db, "explain", "--at", "2026-11-10T13:00:00Z", "--metric", "speed"])
        XCTAssertEqual(bad.status, 2)
    }
}

extension ExplainTests {
    /// On ClickHouse (chDB behind scripts/clickhouse_http.py) the planted causes read the same:
    /// the same logs ingested into both, each scenario's metric, JSON and the account, byte for byte.
    func testTheSameOnClickHouse() throws {
        let server = try ChDBServer.start()
        defer { server.stop() }
        let window = [
            "--since", TimeFormat.rfc3339(ms: ExplainTests.windowStart), "--until", TimeFormat.rfc3339(ms: ExplainTests.windowEnd),
        ]
        let scenarios: [(Incident, String)] = [(.expiredJWT, "errors"), (.sourceStops, "volume"), (.throttledBackground, "throttled")]
        for (i, (incident, metric)) in scenarios.enumerated() {
            let dir = TempDir()
            ExplainTests.write(incident, to: dir)
            let db = dir.file("x.db")
            let url = server.url("explain_\(i)")
            XCTAssertEqual(try Run.pushlog(["--db", db, "ingest", "--quiet", dir.path]).status, 0)
            let ch = try Run.pushlog(["--clickhouse", url, "ingest", "--quiet", dir.path])
            XCTAssertEqual(ch.status, 0, ch.stderr)
            for format in [["--format", "json"], []] {
                let args = ["explain"] + window + ["--metric", metric] + format
                let (lite, house) = (try Run.pushlog(["--db", db] + args), try Run.pushlog(["--clickhouse", url] + args))
                XCTAssertEqual(house.status, lite.status, "\(incident) \(format): \(house.stderr)")
                XCTAssertEqual(house.stdout, lite.stdout, "\(incident) \(format)")
                XCTAssertEqual(house.stderr, lite.stderr, "\(incident) \(format)")
                // A read-only user may not make temporary tables: each section computes the steps.
                let reader = try Run.pushlog(["--clickhouse", server.readerURL("explain_\(i)")] + args)
                XCTAssertEqual(reader.status, lite.status, "\(incident) \(format): \(reader.stderr)")
                XCTAssertEqual(reader.stdout, lite.stdout, "\(incident) \(format), read-only")
                // A balancer that sends a session's next request to another replica: the tables
                // are not there (the session is not found), and each section computes the steps.
                try server.fault("forget 0 -")
                let balanced = try Run.pushlog(["--clickhouse", url] + args)
                try server.fault(nil)
                XCTAssertEqual(balanced.status, lite.status, "\(incident) \(format): \(balanced.stderr)")
                XCTAssertEqual(balanced.stdout, lite.stdout, "\(incident) \(format), sessions lost")
            }
            // Which way each of those runs went, as its timings say.
            let args = ["explain"] + window + ["--metric", metric]
            let timed = ["PUSHLOG_TIMINGS": "1"]
            let normal = try Run.pushlog(["--clickhouse", url] + args, env: timed).stderr
            XCTAssertTrue(normal.contains("explain.explain_records (materialized)"), normal)
            XCTAssertFalse(normal.contains("each section alone"), normal)
            let reader = try Run.pushlog(["--clickhouse", server.readerURL("explain_\(i)")] + args, env: timed).stderr
            XCTAssertTrue(reader.contains("explain: each section alone") && reader.contains("temporary tables refused: code"), reader)
            try server.fault("forget 0 -")
            let balanced = try Run.pushlog(["--clickhouse", url] + args, env: timed).stderr
            try server.fault(nil)
            XCTAssertTrue(balanced.contains("explain: each section alone") && balanced.contains("tables were not found: code"), balanced)
            // The sections of one run read the steps the run made once, in temporary tables of a
            // session; each section run alone computes them in its own statement: the same rows.
            let engine = try ClickHouseEngine(ClickHouseClient(try XCTUnwrap(ClickHouseURL(url))))
            let runner = ReportRunner(engine: engine, catalog: try QueryCatalog())
            let def = try XCTUnwrap(runner.catalog.report("explain"))
            var params = ReportParams(since: ExplainTests.windowStart, until: ExplainTests.windowEnd)
            params.own["metric"] = .text(metric)
            let whole = try runner.sectionRun(def, params)
            XCTAssertTrue(engine.materializes(whole))
            let together = try runner.runs([whole])[0]
            XCTAssertFalse(together.sections.allSatisfy { $0.rows.isEmpty }, "\(incident)")
            for section in together.sections {
                let alone = try runner.sectionRun(def, params, only: [section.name])
                XCTAssertFalse(engine.materializes(alone))
                XCTAssertEqual(try runner.runs([alone])[0].sections.map(\.rows), [section.rows], "\(incident) \(section.name)")
            }
        }
    }
}

extension UUID {
    /// A UUID made from a number: the fixtures' apns-ids, the same on every run.
    init(seq: Int) {
        self.init(uuidString: String(format: "00000000-0000-4000-8000-%012x", seq))!
    }
}
