import Foundation
import Testing

@testable import PushLogKit

/// Every format on its fixtures, read the ways a log reaches pushlog: found by detection, named
/// with `--format`, gzipped by the real gzip, and read a second time. Each way gives the same
/// records and the same rejects (line, reason and text), and the second read adds nothing.
@Suite struct FormatMatrixTests {
    /// A fixture and the format detection must pick for it.
    static let fixtures: [(fixture: String, format: String)] = [
        ("aioapns.log", "aioapns"),
        ("aioapns-sygnal.log", "aioapns"),
        ("apns2.log", "apns2"),
        ("bark-server.log", "bark-server"),
        ("gorush.log", "gorush"),
        ("gorush-terminal.log", "gorush"),
        ("gorush-api.log", "gorush"),
        ("syslog-gorush.log", "gorush"),
        ("mattermost-push-proxy.log", "mattermost-push-proxy"),
        ("mattermost-push-proxy.json", "mattermost-push-proxy"),
        ("node-apn-console.log", "node-apn-console"),
        ("parse-server.log", "parse-server"),
        ("pushy.log", "pushy"),
        ("pushy-field.log", "pushy"),
        ("rpush.log", "rpush"),
        ("rpush-field.log", "rpush"),
        ("sygnal.log", "sygnal"),
        ("sns.ndjson", "sns"),
        ("canonical.ndjson", "ndjson"),
        ("bad-lines.ndjson", "ndjson"),
        ("syslog-ndjson.log", "ndjson"),
        ("pretty.json", "json-document"),
        ("pretty-rejects.json", "json-document"),
        ("same.csv", "csv"),
        ("same.logfmt", "logfmt"),
    ]

    /// What a read left in the database, without the columns that name the file it came from.
    struct Contents: Equatable {
        var records: [String]
        var rejects: [String]
    }

    static func contents(_ db: String) throws -> Contents {
        let c = try Store.openForReading(path: db)
        func lines(_ sql: String) throws -> [String] {
            let s = try c.prepare(sql)
            var out: [String] = []
            while try s.step() { out.append((0..<s.columnCount).map { "\(s.value($0))" }.joined(separator: "|")) }
            return out
        }
        return Contents(
            records: try lines(
                """
                SELECT time_ms, line, line_hash, kind, token, apns_id, env, topic, push_type, priority, status, reason,
                       category, error, attempt, payload_bytes, content_available, has_alert
                FROM sends_v ORDER BY line, time_ms, kind, id
                """),
            rejects: try lines("SELECT line, reason, text, line_hash FROM rejects ORDER BY line, id"))
    }

    static func gzipped(_ path: String, into tmp: TempDir) throws -> String {
        let out = tmp.file(URL(fileURLWithPath: path).lastPathComponent + ".gz")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", "gzip -c \"$0\" > \"$1\"", path, out]
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        return out
    }

    @Test(arguments: fixtures)
    func everyWayOfReadingGivesTheSameRecords(fixture: String, format: String) throws {
        let tmp = TempDir()
        let path = Fixtures.path(fixture)

        let detected = tmp.file("detected.db")
        let first = try ingest([path], db: detected)
        #expect(first.files.first?.format == format)
        let expected = try Self.contents(detected)
        #expect(!expected.records.isEmpty || !expected.rejects.isEmpty, "the fixture reads as nothing")

        let again = try ingest([path], db: detected)
        #expect(again.files.first?.records.total == 0, "a second read added records")
        #expect(try Self.contents(detected) == expected)

        let named = tmp.file("named.db")
        _ = try ingest([path], db: named, format: format)
        #expect(try Self.contents(named) == expected)

        let gz = tmp.file("gzipped.db")
        _ = try ingest([try Self.gzipped(path, into: tmp)], db: gz)
        #expect(try Self.contents(gz) == expected)
    }
}
