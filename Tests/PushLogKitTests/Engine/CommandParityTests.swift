import Foundation
import XCTest
@testable import PushLogKit

/// `trace`, `tokens`, `metrics`, `sources`, `rejects`, `query`, `schema` and `explain` print the same on
/// SQLite and on ClickHouse (chDB behind scripts/clickhouse_http.py): the same files ingested in
/// the same order into both, every command run as a user runs it, stdout, stderr and exit status
/// compared byte for byte. The files are read in an order that is not their paths' order, and two
/// of them hold records that tie in time, so the listings' order and every ORDER BY's tie-break
/// show.
final class CommandParityTests: XCTestCase {
    static let uuid = "7613216a-fb3d-457d-8b46-797ebaa45e74"
    static let token = "aa01000000000000000000000000000000000000000000000000000000000000"

    /// Records that tie with the token fixture's (the same token, kind and time, in another file),
    /// a send with a UUID apns-id, a token that only the engine's list of irregular tokens masks
    /// (short, not hex), and a line that is not a record.
    static let ties = """
        {"time":"2026-11-09T09:00:00Z","event":"send","token":"\(token)","apns_id":"x-1b","env":"production","topic":"com.shop.app","push_type":"alert","status":200}
        {"time":"2026-11-09T09:00:00Z","event":"send","token":"\(token)","apns_id":"x-1a","env":"production","topic":"com.shop.app","push_type":"alert","status":200}
        {"time":"2026-11-12T09:30:00Z","event":"send","token":"bb02000000000000000000000000000000000000000000000000000000000000","apns_id":"\(uuid.uppercased())","env":"production","topic":"com.shop.app","push_type":"alert","status":200}
        {"time":"2026-11-12T09:31:00Z","event":"receipt","apns_id":"\(uuid)","receipt":"presented","device":"dev-s"}
        {"time":"2026-11-12T09:32:00Z","event":"teleport","token":"ab"}
        {"time":"2026-11-12T09:40:00Z","event":"register","token":"short-tok-1","device":"dev-q","user":"u-q","env":"production"}
        {"time":"2026-11-12T09:41:00Z","event":"send","token":"short-tok-1","apns_id":"x-q","env":"sandbox","topic":"com.shop.app","status":400,"reason":"BadDeviceToken"}

        """

    func testCommandsPrintTheSameOnBothEngines() throws {
        let server = try ChDBServer.start(user: "ops", password: "s3cret")
        defer { server.stop() }
        let url = server.url("parity")
        let dir = TempDir()
        let db = dir.file("parity.db")
        // Read in this order, which is not the paths' order: z, m, a.
        try FileManager.default.copyItem(atPath: Fixtures.path("tokens.ndjson"), toPath: dir.file("z-tokens.ndjson"))
        try FileManager.default.copyItem(atPath: Fixtures.path("bad-lines.ndjson"), toPath: dir.file("a-bad.ndjson"))
        let files = [dir.file("z-tokens.ndjson"), dir.write("m-ties.ndjson", CommandParityTests.ties), dir.file("a-bad.ndjson")]
        for f in files {
            XCTAssertEqual(try Run.pushlog(["--db", db, "ingest", "--quiet", f]).status, 0)
            let ch = try Run.pushlog(["--clickhouse", url, "ingest", "--quiet", f])
            XCTAssertEqual(ch.status, 0, ch.stderr)
        }
        // The first file grows and is read on (it stays first in the listings), and a file that is
        // not a log is refused whole (listed as refused, with the reason).
        let grown = try FileHandle(forWritingAtPath: files[0]).map { h in
            try h.seekToEnd()
            try h.write(contentsOf: Data(#"{"time":"2026-11-13T08:00:00Z","event":"teleport","token":"ab"}"#.utf8 + [10]))
            try h.close()
        }
        XCTAssertNotNil(grown)
        let notALog = dir.write("photo.jpg", bytes: [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array(repeating: 0, count: 200))
        for f in [files[0], notALog] {
            let lite = try Run.pushlog(["--db", db, "ingest", "--quiet", f])
            let ch = try Run.pushlog(["--clickhouse", url, "ingest", "--quiet", f])
            XCTAssertEqual(ch.status, lite.status, ch.stderr)
        }

        let token = CommandParityTests.token
        let cases: [[String]] = [
            ["sources"], ["sources", "--format", "json"],
            ["rejects"], ["rejects", "--limit", "1"], ["rejects", "--source", "a-bad.ndjson"], ["rejects", "--source", "nope.log"],
            ["tokens", "--gone", "--superseded", "--bad", "--mismatched", "--reveal-tokens"],
            ["tokens", "--gone", "--superseded", "--bad", "--mismatched", "--format", "json"],
            ["tokens", "--bad", "--since", "2026-11-10"], ["tokens", "--gone", "--since", "2030-01-01"],
            ["trace", token], ["trace", "aa01"], ["trace", "aa010000…0000", "--format", "json"], ["trace", "dev-t"], ["trace", "u-s"],
            ["trace", "x-1"], ["trace", CommandParityTests.uuid.uppercased()], ["trace", "7613216A"], ["trace", "aa0"],
            ["trace", "no-such-key"],
            ["metrics"], ["metrics", "--since", "2026-11-10", "--until", "2026-11-12"],
            ["trace", "short-tok-1"], ["trace", "dev-q", "--reveal-tokens"],
            ["tokens", "--mismatched", "--bad", "--format", "lines", "--reveal-tokens"],
            [
                "query",
                "SELECT 1 + 1 AS two, 'aa01000000000000000000000000000000000000000000000000000000000000' AS t, 'at short-tok-1.' AS s",
            ],
            ["query", ".tables"], ["query", "-- nothing to run\n;"], ["schema", "zzzzzz"],
        ]
        for args in cases {
            let lite = try Run.pushlog(["--db", db] + args)
            let ch = try Run.pushlog(["--clickhouse", url] + args)
            let label = args.joined(separator: " ")
            XCTAssertEqual(ch.status, lite.status, "\(label): \(ch.stderr)")
            XCTAssertEqual(comparable(ch.stdout, args), comparable(lite.stdout, args), label)
            XCTAssertEqual(ch.stderr, lite.stderr, label)
        }

        // What the fixture must show for the comparison to mean something.
        let sources = try Run.pushlog(["--db", db, "sources"]).stdout.split(separator: "\n").dropFirst().map { $0.prefix { $0 != "\t" } }
        XCTAssertEqual(
            sources.map { ($0 as Substring).hasSuffix("z-tokens.ndjson") }, [true, false, false, false], "files in the order read")
        XCTAssertTrue(try Run.pushlog(["--db", db, "sources"]).stdout.contains("\trefused\t"), "a refused file listed")
        let trace = try Run.pushlog(["--clickhouse", url, "trace", token, "--format", "tsv"]).stdout
        XCTAssertTrue(trace.contains("apns-id x-1 env") && trace.contains("apns-id x-1a env"), trace)
        let schema = try Run.pushlog(["--clickhouse", url, "schema", "records"])
        XCTAssertEqual(schema.status, 0, schema.stderr)

        // The shared relations, listed first on ClickHouse, with SQLite's meanings and columns
        // but for the store's own numbering.
        func listing(_ base: [String], _ args: [String]) throws -> [[String]] {
            let r = try Run.pushlog(base + ["schema"] + args + ["--format", "tsv"])
            XCTAssertEqual(r.status, 0, r.stderr)
            return r.stdout.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        }
        func shared(_ rows: [[String]]) -> [[String]] {
            rows.filter { Schema.sharedRelations.contains($0[0]) }.map { row in
                [
                    row[0], row[1],
                    row[2].split(separator: " ").filter { !Schema.storeNumbering.contains(String($0)) }.joined(separator: " "),
                ]
            }
        }
        let chTables = try listing(["--clickhouse", url], [])
        XCTAssertEqual(chTables.first, ["table", "meaning", "columns"])
        XCTAssertEqual(chTables.dropFirst().prefix(Schema.sharedRelations.count).map { $0[0] }, Schema.sharedRelations)
        XCTAssertEqual(shared(chTables), shared(try listing(["--db", db], [])))
        for relation in Schema.sharedRelations {
            let lite = try listing(["--db", db], [relation]).filter { !Schema.storeNumbering.contains($0[0]) }
            XCTAssertEqual(try listing(["--clickhouse", url], [relation]), lite, relation)
        }
    }

    /// `explain` on the demo's logs, ingested into both in the demo's order: the window `--at` the
    /// demo's incident names, every metric and baseline, the account a terminal gets, the JSON and
    /// the table of the sections, byte for byte.
    func testExplainPrintsTheSameOnBothEngines() throws {
        let server = try ChDBServer.start()
        defer { server.stop() }
        let url = server.url("explain")
        let dir = TempDir()
        let db = dir.file("demo.db")
        let demo = try Run.pushlog([
            "--db", db, "demo", dir.file("logs"), "--devices", "600", "--weeks", "2", "--end", "2026-11-26T12:00:00Z",
        ])
        XCTAssertEqual(demo.status, 0, demo.stderr)
        let at = try XCTUnwrap(demo.stderr.firstMatch(of: /explain --at (\S+)/)?.1).description
        let ch = try Run.pushlog(["--clickhouse", url, "ingest", "--quiet", dir.file("logs/provider"), dir.file("logs/app")])
        XCTAssertEqual(ch.status, 0, ch.stderr)

        var cases: [[String]] = [
            ["explain", "--at", at], ["explain", "--at", at, "--format", "json"], ["explain", "--at", at, "--format", "table"],
            ["explain", "--since", "2026-11-16T10:00:00Z", "--until", "2026-11-23T10:00:00Z", "--format", "json"],
        ]
        for metric in ["errors", "gone", "volume", "throttled", "latency"] {
            for baseline in ["previous", "week"] {
                cases.append(["explain", "--at", at, "--metric", metric, "--baseline", baseline, "--format", "json", "--reveal-tokens"])
            }
        }
        for args in cases {
            let lite = try Run.pushlog(["--db", db] + args)
            let ch = try Run.pushlog(["--clickhouse", url] + args)
            let label = args.joined(separator: " ")
            XCTAssertEqual(ch.status, lite.status, "\(label): \(ch.stderr)")
            XCTAssertEqual(ch.stdout, lite.stdout, label)
            XCTAssertEqual(ch.stderr, lite.stderr, label)
        }
        // What the comparison must show to mean something: the incident, named.
        let account = try Run.pushlog(["--clickhouse", url, "explain", "--at", at]).stdout
        XCTAssertTrue(account.contains("of the increase is ExpiredProviderToken"), account)
    }

    /// Output with what differs by nature left out: when each engine read the files, how long ago
    /// the newest record was.
    func comparable(_ out: String, _ args: [String]) -> String {
        switch args[0] {
        case "sources":
            return out.replacing(/20\d\d-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/, with: "TIME")
        case "metrics":
            return out.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.contains("seconds_since_newest_record") }
                .joined(separator: "\n")
        default:
            return out
        }
    }
}
