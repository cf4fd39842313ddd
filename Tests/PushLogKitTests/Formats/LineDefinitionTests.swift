import Foundation
import XCTest
@testable import PushLogKit

/// Line formats defined as data: the built-in definitions on their fixtures,
/// a user's definition through the CLI, and definitions that must be refused with file and line.
final class LineDefinitionTests: XCTestCase {
    func testBuiltInDefinitionsAreCompiledIn() throws {
        let lib = try FormatLibrary.load()
        XCTAssertEqual(
            lib.names, ["aioapns", "apns2", "bark-server", "mattermost-push-proxy", "parse-server", "pushy", "rpush", "sygnal"])
        XCTAssertTrue(lib.definitions.allSatisfy { $0.builtIn && !$0.samples.isEmpty })
    }

    func testBuiltInDefinitionsReadTheirLogs() throws {
        let tmp = TempDir(), db = tmp.file("p.db")
        let files = ["pushy.log", "parse-server.log", "aioapns.log", "rpush.log"].map { Fixtures.path($0) }
        let s = try ingest(files, db: db)
        XCTAssertEqual(s.files.map(\.format), ["pushy", "parse-server", "aioapns", "rpush"])
        XCTAssertEqual(s.files.map(\.totalRecords), [3, 2, 2, 2])  // Pushy's line naming no token is a response
        XCTAssertEqual(s.files.map(\.ignored), [1, 1, 1, 1])  // the applications' other lines
        XCTAssertEqual(s.files.map(\.rejects), [0, 0, 0, 0])
        let r = try rows(
            """
            SELECT s.source_id, rfc3339(s.time_ms), s.kind, k.token, s.apns_id, s.status, s.reason, s.category
            FROM sends_v s LEFT JOIN tokens k ON k.id = s.token_id ORDER BY s.source_id, s.time_ms
            """, db)
        XCTAssertEqual(
            r,
            [
                [.int(1), .text("2026-11-02T08:00:00.123Z"), .int(0), .text(Self.token(80)), .null, .int(200), .null, .text("accepted")],
                [
                    .int(1), .text("2026-11-02T08:00:01.456Z"), .int(0), .text(Self.token(81)), .null, .int(400), .text("BadDeviceToken"),
                    .text("token-bad"),
                ],
                [
                    .int(1), .text("2026-11-02T08:00:02.789Z"), .int(2), .null, .null, .int(429), .text("TooManyProviderTokenUpdates"),
                    .text("auth"),
                ],
                [.int(2), .text("2026-11-02T08:10:00.100Z"), .int(0), .text(Self.token(82)), .null, .int(200), .null, .text("accepted")],
                [
                    .int(2), .text("2026-11-02T08:10:00.200Z"), .int(0), .text(Self.token(83)), .null, .int(410), .text("Unregistered"),
                    .text("token-gone"),
                ],
                [
                    .int(3), .text("2026-11-02T08:20:00.250Z"), .int(2), .null, .text("1b6f5d2e-0c1f-5e2b-9e7a-1e2f3a4b5c6d"), .int(400),
                    .text("DeviceTokenNotForTopic"), .text("token-bad"),
                ],
                [
                    .int(3), .text("2026-11-02T08:20:01Z"), .int(2), .null, .text("2b6f5d2e-0c1f-5e2b-9e7a-1e2f3a4b5c6d"), .int(200), .null,
                    .text("accepted"),
                ],
                [
                    .int(4), .text("2026-11-02T08:30:01Z"), .int(0), .text(Self.token(84)), .text("1042"), .int(200), .null,
                    .text("accepted"),
                ],
                [
                    .int(4), .text("2026-11-02T08:30:05Z"), .int(2), .null, .text("1043"), .int(410), .text("Unregistered"),
                    .text("token-gone"),
                ],
            ])
    }

    static let senderDefinition = """
        # Our own sender, one line per APNs answer.
        name: acme-sender
        description: ACME's push sender
        time-format: %d/%b/%Y:%H:%M:%S %z
        set: event=send
        set: env=production
        pattern: ^\\[(?<time>[^\\]]+)\\] apns (?<token>[0-9a-f]{64}) -> (?<status>\\d{3})(?: (?<reason>[A-Za-z]+))?
        sample: [02/Nov/2026:09:00:00 +0100] apns \(String(repeating: "ab", count: 32)) -> 410 Unregistered
        expect: status=410 reason=Unregistered time=2026-11-02T08:00:00Z env=production

        """

    func testAUserDefinitionThroughTheCommandLine() throws {
        let tmp = TempDir(), db = tmp.file("p.db")
        try FileManager.default.createDirectory(atPath: tmp.file("formats"), withIntermediateDirectories: true)
        _ = tmp.write("formats/acme.format", Self.senderDefinition)
        let log = tmp.write(
            "acme.log",
            """
            [02/Nov/2026:09:00:00 +0100] apns \(Self.token(90)) -> 200
            [02/Nov/2026:09:00:01 +0100] apns \(Self.token(91)) -> 400 BadDeviceToken
            [02/Nov/2026:09:00:02 +0100] queue drained

            """)
        let list = try Run.pushlog(["formats", "--formats", tmp.file("formats"), "--format", "tsv"])
        XCTAssertEqual(list.status, 0, list.stderr)
        XCTAssertTrue(
            list.stdout.contains(
                "acme-sender\tyours: \(tmp.file("formats"))/acme.format\tACME's push sender\t[02/Nov/2026:09:00:00 +0100] apns"),
            list.stdout)
        XCTAssertTrue(list.stdout.contains("\nrpush\tdefinition\t"), list.stdout)
        // Detected after the built-in formats, with the folder from $PUSHLOG_FORMATS.
        let r = try Run.pushlog(["--db", db, "ingest", "--format", "json", log], env: ["PUSHLOG_FORMATS": tmp.file("formats")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("\"format\":\"acme-sender\""), r.stdout)
        XCTAssertEqual(
            try rows("SELECT rfc3339(time_ms), env, status, reason FROM sends_v ORDER BY time_ms", db),
            [
                [.text("2026-11-02T08:00:00Z"), .text("production"), .int(200), .null],
                [.text("2026-11-02T08:00:01Z"), .text("production"), .int(400), .text("BadDeviceToken")],
            ])
        // Without the folder the file is no known format; forced by name it is read.
        let other = tmp.file("q.db")
        XCTAssertEqual(try Run.pushlog(["--db", other, "ingest", "--quiet", log]).status, 1)
        XCTAssertEqual(
            try Run.pushlog(["--db", other, "ingest", "--quiet", "--formats", tmp.file("formats"), "--input-format", "acme-sender", log])
                .status, 0)
        XCTAssertEqual(
            try Run.pushlog(["formats", "check", tmp.file("formats/acme.format")]).stdout,
            "\(tmp.file("formats/acme.format")): ok — format 'acme-sender', 1 sample line read as records\n")
    }

    func testBadDefinitionsAreUsageErrorsNamingFileAndLine() throws {
        let tmp = TempDir()
        let good = Self.senderDefinition
        let cases: [(String, String)] = [
            (good.replacingOccurrences(of: "(?<token>", with: "(?<tokn>"), ":7: unknown field 'tokn' in a named capture"),
            (good.replacingOccurrences(of: "-> (?<status>", with: "-> ((?<status>"), ":7: bad regular expression (ICU syntax)"),
            (
                good.replacingOccurrences(of: "(?<token>", with: "(?<apns_id>"),
                ":7: capture name 'apns_id': names are ASCII letters and digits"
            ),
            (good.replacingOccurrences(of: "set: env=production", with: "set: enviro=production"), ":6: unknown field 'enviro' in set"),
            (good.replacingOccurrences(of: "-> 410 Unregistered", with: "=> 410 Unregistered"), ":8: no pattern matches the sample"),
            (
                good.replacingOccurrences(of: "reason=Unregistered", with: "reason=Gone"),
                ":9: the sample gives reason=Unregistered, expected Gone"
            ),
            (good.replacingOccurrences(of: "%d/%b", with: "%d/%Q"), ":4: unknown time directive %Q"),
            (good.replacingOccurrences(of: "description:", with: "descripton:"), ":3: unknown directive 'descripton'"),
            (good.replacingOccurrences(of: "name: acme-sender", with: "name: gorush"), ":1: 'gorush' is the name of a built-in format"),
        ]
        for (i, (text, want)) in cases.enumerated() {
            let dir = tmp.file("f\(i)")
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            let file = tmp.write("f\(i)/x.format", text)
            let check = try Run.pushlog(["formats", "check", file])
            let list = try Run.pushlog(["formats", "--formats", dir])
            let ing = try Run.pushlog(["--db", tmp.file("p\(i).db"), "ingest", "--formats", dir, Fixtures.path("canonical.ndjson")])
            if want.contains("built-in format") {
                XCTAssertEqual(check.status, 0, "a file alone may use any name")  // only loading it beside the built-ins clashes
            } else {
                XCTAssertEqual(check.status, 2, want)
                XCTAssertTrue(check.stderr.contains(file + want), "\(want)\n\(check.stderr)")
            }
            XCTAssertEqual(list.status, 2, want)
            XCTAssertTrue(list.stderr.contains(file + want), "\(want)\n\(list.stderr)")
            XCTAssertEqual(ing.status, 2, want)
            XCTAssertFalse(FileManager.default.fileExists(atPath: tmp.file("p\(i).db")), "a usage error writes nothing")
        }
    }

    func testDefinitionTime() {
        var why = ""
        let t = DefinitionTime("%d/%b/%Y:%H:%M:%S %z", why: &why)!
        XCTAssertEqual(t.parse("02/Nov/2026:09:00:00 +0100"), TimeParser.parse("2026-11-02T08:00:00Z"))
        XCTAssertNil(t.parse("02/Nov/2026:09:00:00"))
        let f = DefinitionTime("%Y-%m-%d %H:%M:%S,%f", why: &why)!
        XCTAssertEqual(f.parse("2026-11-02 08:20:00,250"), TimeParser.parse("2026-11-02T08:20:00.250Z"))
        let e = DefinitionTime("%b %e %H:%M:%S %Y", why: &why)!
        XCTAssertEqual(e.parse("Nov  2 08:00:00 2026"), TimeParser.parse("2026-11-02T08:00:00Z"))
        XCTAssertNil(DefinitionTime("%Q", why: &why))
        XCTAssertEqual(why, "unknown time directive %Q")
        XCTAssertEqual(LineDefinition.captureNames(#"(?<time>\S+) (?<=x)(?<!y) \(?<no>x) (?<status>\d+)"#), ["time", "status"])
    }
}

extension LineDefinitionTests {
    func testRequiredLiteralIsOnlyWhatEveryMatchContains() {
        func lit(_ p: String) -> String? { LineDefinition.requiredLiteral(p).map { String(decoding: $0, as: UTF8.self) } }
        XCTAssertEqual(lit(#"^(?<time>\S+)\s.*APNS transmitted to (?<token>[0-9A-Fa-f]+)"#), "APNS transmitted to ")
        XCTAssertEqual(lit(#"^\[(?<time>[^\]]+)\] apns (?<token>[0-9a-f]{64}) -> (?<status>\d{3})"#), "] apns ")
        XCTAssertEqual(lit(#"Status of notifications? is"#), "Status of notification")  // the quantified s is not required
        XCTAssertNil(lit(#"sent|failed"#))  // a top-level alternation: no single literal
        XCTAssertNil(lit(#"(?i)status of"#))  // flags: case-insensitive text
        XCTAssertNil(lit(#"(?:optional text)?\d+"#))  // inside a group: maybe absent
    }
}
