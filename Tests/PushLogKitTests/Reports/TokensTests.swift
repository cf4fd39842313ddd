import Foundation
import XCTest
@testable import PushLogKit

/// `pushlog tokens` on Tests/Fixtures/tokens.ndjson (week of Monday 2026-11-09), derived by hand:
/// aa01 (G1) gone, two 410s with one APNs timestamp; aa02 (G2) registered again after its 410's
/// timestamp: valid; aa03 (G3) registered again before the timestamp: still gone; aa04 (G4)
/// ExpiredToken under 400, never registered; aa05 (G5) gone, valid again, gone again. dev-s:
/// bb01 -> bb02; dev-t: bb03 -> bb04 -> bb03. cc01 bad twice after a success; cc02 bad, success,
/// bad; cc03 bad twice then a success. dd01 registered sandbox, sent production.
final class TokensTests: XCTestCase {
    static var dbPath: String { IngestedFixtures.tokens }

    /// Ingests before the first test.
    override class func setUp() { _ = dbPath }

    static func tok(_ prefix: String) -> String { prefix + String(repeating: "0", count: 60) }

    func run(_ kinds: Set<TokenCleanup.Kind>, since: String? = nil) throws -> [[String: SQLValue]] {
        let db = try Store.openForReading(path: TokensTests.dbPath)
        let doc = try TokenCleanup(engine: SQLiteCommandEngine(db: db)).run(kinds, since: since.map { TimeArgument.parse($0)! })
        let t = try XCTUnwrap(doc.section("tokens"))
        return t.rows.map { Dictionary(uniqueKeysWithValues: zip(t.columns, $0)) }
    }

    func testGoneListsExactlyTheTokensTheDefinitionGives() throws {
        let rows = try run([.gone])
        // Ordered by the latest 410: G3 Tue 12:00, G1 Wed 10:00, G5 Wed 12:00, G4 Thu 10:00.
        // G2 is absent: registered Tue 11:30, after its 410's timestamp (Tue 11:00).
        XCTAssertEqual(rows.map { $0["token"] }, ["aa03", "aa01", "aa05", "aa04"].map { .text(Self.tok($0)) })
        let g3 = rows[0], g1 = rows[1], g5 = rows[2], g4 = rows[3]
        // G3 registered again Tue 08:00, before the timestamp Tue 10:00: still gone.
        XCTAssertEqual(g3["first_410"], .text("2026-11-10T12:00:00Z"))
        XCTAssertEqual(g3["apns_timestamp"], .text("2026-11-10T10:00:00Z"))
        XCTAssertEqual(g3["reason"], .text("ExpiredToken"))
        XCTAssertEqual(g3["last_accepted"], .null)
        XCTAssertEqual(g3["device"], .text("dev-g3"))
        // G1: first and latest 410, one response after the first.
        XCTAssertEqual(g1["first_410"], .text("2026-11-10T10:00:00Z"))
        XCTAssertEqual(g1["latest_410"], .text("2026-11-11T10:00:00Z"))
        XCTAssertEqual(g1["apns_timestamp"], .text("2026-11-10T09:00:00Z"))
        XCTAssertEqual(g1["last_accepted"], .text("2026-11-09T09:00:00Z"))
        XCTAssertEqual(g1["sends_since_410"], .int(1))
        XCTAssertEqual(g1["user"], .text("u-g1"))
        XCTAssertEqual(g1["topic"], .text("com.shop.app"))
        XCTAssertEqual(g1["why"], .text("gone"))
        // G5: the Monday 410 was cured by Tuesday's registration; the current spell starts Wed 12:00.
        XCTAssertEqual(g5["first_410"], .text("2026-11-11T12:00:00Z"))
        XCTAssertEqual(g5["last_accepted"], .text("2026-11-10T09:00:00Z"))
        XCTAssertEqual(g5["sends_since_410"], .int(0))
        // G4: ExpiredToken under status 400; no APNs timestamp, so its own time; no registration.
        XCTAssertEqual(g4["apns_timestamp"], .text("2026-11-12T10:00:00Z"))
        XCTAssertEqual(g4["reason"], .text("ExpiredToken"))
        XCTAssertEqual(g4["device"], .null)
    }

    func testSince() throws {
        // Evidence at or after Wed 00:00: G1 (Wed 10:00), G5 (Wed 12:00), G4 (Thu); not G3 (Tue).
        XCTAssertEqual(try run([.gone], since: "2026-11-11").map { $0["token"] }, ["aa01", "aa05", "aa04"].map { .text(Self.tok($0)) })
        XCTAssertEqual(try run([.gone], since: "2026-11-12T10:00:01Z").count, 0)
        XCTAssertEqual(try run([.superseded], since: "2026-11-11T08:00:00Z").count, 2)
        XCTAssertEqual(try run([.superseded], since: "2026-11-11T08:00:01Z").count, 0)
        XCTAssertEqual(try run([.bad], since: "2026-11-10T10:00:01Z").count, 0)
        XCTAssertEqual(try run([.mismatched], since: "2026-11-11").map { $0["token"] }, [.text(Self.tok("bb01"))])
    }

    func testSupersededBadMismatched() throws {
        let sup = try run([.superseded])
        // bb01 replaced by bb02 on Wed 08:00, two responses since; bb04 replaced by bb03 (dev-t went
        // back to it), none since. bb03 is dev-t's current token: not listed.
        XCTAssertEqual(sup.map { $0["token"] }, [.text(Self.tok("bb01")), .text(Self.tok("bb04"))])
        XCTAssertEqual(sup[0]["replaced_by"], .text(Self.tok("bb02")))
        XCTAssertEqual(sup[0]["replaced_at"], .text("2026-11-11T08:00:00Z"))
        XCTAssertEqual(sup[0]["sends_since_replaced"], .int(2))
        XCTAssertEqual(sup[0]["device"], .text("dev-s"))
        XCTAssertEqual(sup[1]["replaced_by"], .text(Self.tok("bb03")))
        XCTAssertEqual(sup[1]["sends_since_replaced"], .int(0))

        // Only cc01: two bad responses after its last success. cc02 has one since its success,
        // cc03's success came after them; dd01 and bb01 had one BadDeviceToken each.
        let bad = try run([.bad])
        XCTAssertEqual(bad.map { $0["token"] }, [.text(Self.tok("cc01"))])
        XCTAssertEqual(bad[0]["bad_responses"], .int(2))
        XCTAssertEqual(bad[0]["first_bad"], .text("2026-11-09T10:00:00Z"))
        XCTAssertEqual(bad[0]["latest_bad"], .text("2026-11-10T10:00:00Z"))
        XCTAssertEqual(bad[0]["bad_reason"], .text("DeviceTokenNotForTopic"))
        XCTAssertEqual(bad[0]["topic"], .text("com.shop.widget"))
        XCTAssertEqual(bad[0]["last_accepted"], .text("2026-11-09T09:00:00Z"))

        let mis = try run([.mismatched])
        XCTAssertEqual(mis.map { $0["token"] }, [.text(Self.tok("dd01")), .text(Self.tok("bb01"))])
        XCTAssertEqual(mis[0]["registered_env"], .text("sandbox"))
        XCTAssertEqual(mis[0]["sent_env"], .text("production"))
        XCTAssertEqual(mis[0]["mismatched_sends"], .int(1))
        XCTAssertEqual(mis[0]["bad_device_token"], .int(1))
        XCTAssertEqual(mis[1]["sent_env"], .text("sandbox"))

        // Combined: one row per token; bb01 is both superseded and mismatched.
        let all = try run(Set(TokenCleanup.Kind.allCases))
        XCTAssertEqual(all.count, 8)  // 4 gone + bb01 + bb04 + cc01 + dd01
        XCTAssertEqual(Set(all.compactMap { $0["token"].map(CellFormat.plain) }).count, 8)
        XCTAssertEqual(all.first { $0["token"] == .text(Self.tok("bb01")) }?["why"], .text("superseded,mismatched"))
    }

    func testCommandMasksFormatsAndRefusesBadUsage() throws {
        let db = TokensTests.dbPath
        // Masked by default, with a note on stderr.
        let masked = try Run.pushlog(["--db", db, "tokens", "--gone", "--format", "csv"])
        XCTAssertEqual(masked.status, 0)
        XCTAssertTrue(masked.stdout.contains("aa010000…0000"), masked.stdout)
        XCTAssertFalse(masked.stdout.contains(Self.tok("aa01")))
        XCTAssertTrue(masked.stderr.contains("masked list cannot be acted on"), masked.stderr)
        // --format lines: one full token per line, nothing else.
        let lines = try Run.pushlog(["--db", db, "tokens", "--gone", "--bad", "--format", "lines", "--reveal-tokens"])
        XCTAssertEqual(lines.status, 0)
        XCTAssertEqual(lines.stdout, ["aa03", "aa01", "aa05", "aa04", "cc01"].map { Self.tok($0) + "\n" }.joined())
        XCTAssertEqual(lines.stderr, "")
        // -o writes the same lines to a file.
        let tmp = TempDir()
        let out = tmp.file("gone.txt")
        XCTAssertEqual(
            try Run.pushlog(["--db", db, "tokens", "--gone", "--since", "2026-11-12", "--format", "lines", "--reveal-tokens", "-o", out])
                .status, 0)
        XCTAssertEqual(try String(contentsOfFile: out, encoding: .utf8), Self.tok("aa04") + "\n")
        // JSON rows carry the evidence.
        let json = try Run.pushlog(["--db", db, "tokens", "--superseded", "--format", "json", "--reveal-tokens"])
        XCTAssertTrue(json.stdout.contains("\"replaced_by\":\"\(Self.tok("bb02"))\""), json.stdout)
        // Usage errors exit 2 and name the fix.
        let none = try Run.pushlog(["--db", db, "tokens"])
        XCTAssertEqual(none.status, 2)
        XCTAssertTrue(none.stderr.contains("--gone"), none.stderr)
        XCTAssertEqual(try Run.pushlog(["--db", db, "tokens", "--gone", "extra"]).status, 2)
        XCTAssertEqual(try Run.pushlog(["--db", db, "tokens", "--gone", "--format", "yaml"]).status, 2)
        XCTAssertEqual(try Run.pushlog(["--db", db, "tokens", "--gone", "--since", "soon"]).status, 2)
        XCTAssertEqual(try Run.pushlog(["--db", db, "tokens", "--gone", "--by", "day"]).status, 2)
        // A deletion list of masked tokens is refused, not printed with a note.
        let maskedLines = try Run.pushlog(["--db", db, "tokens", "--gone", "--format", "lines"])
        XCTAssertEqual(maskedLines.status, 2)
        XCTAssertEqual(maskedLines.stdout, "")
        XCTAssertTrue(maskedLines.stderr.contains("--reveal-tokens"), maskedLines.stderr)
        // A window with no records says so, as report does.
        let empty = try Run.pushlog(["--db", db, "tokens", "--gone", "--since", "2030-01-01"])
        XCTAssertEqual(empty.status, 0)
        XCTAssertTrue(empty.stderr.contains("no records since 2030-01-01"), empty.stderr)
    }

    /// On the demo corpus, the gone list equals the definition computed another way: for every
    /// token, its latest token-gone response by a window function over `sends`, and no row of
    /// `registers` after that response's APNs timestamp.
    func testGoneOnDemoCorpusMatchesAnIndependentDerivation() throws {
        let tmp = TempDir()
        _ = try DemoGenerator(smallDemo(devices: 200)).write(to: tmp.path + "/logs")
        let dbPath = tmp.file("demo.db")
        _ = try ingest([tmp.path + "/logs"], db: dbPath)
        let db = try Store.openForReading(path: dbPath)
        let listed = try XCTUnwrap(TokenCleanup(engine: SQLiteCommandEngine(db: db)).run([.gone]).section("tokens")).rows.map {
            CellFormat.plain($0[0])
        }
        let s = try db.prepare(
            """
            WITH ranked AS (
              SELECT token_id, time_ms, coalesce(apns_ts, time_ms) AS ts,
                     row_number() OVER (PARTITION BY token_id ORDER BY time_ms DESC) AS k
              FROM sends_v
              WHERE kind IN (0, 2) AND token_id IS NOT NULL
                AND (status = 410 OR reason IN ('Unregistered', 'ExpiredToken'))
            )
            SELECT tokens.token FROM ranked JOIN tokens ON tokens.id = ranked.token_id
            WHERE k = 1 AND NOT EXISTS (SELECT 1 FROM registers_v r WHERE r.token_id = ranked.token_id AND r.time_ms > ranked.ts)
            """)
        var expected: [String] = []
        while try s.step() { expected.append(s.string(0)!) }
        XCTAssertGreaterThan(expected.count, 5, "the demo should retire some tokens")
        XCTAssertEqual(Set(listed), Set(expected))
        XCTAssertEqual(listed.count, expected.count)
    }
}
