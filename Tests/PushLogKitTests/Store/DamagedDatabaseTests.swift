import Foundation
import XCTest
@testable import PushLogKit

/// A database damaged on disk (bytes of a real page overwritten) or whose own invariants broke:
/// `pushlog check` finds it and exits 1, and every command that meets the damage exits 1 naming
/// the file and `pushlog check`, instead of answering or writing on. All through the binary.
final class DamagedDatabaseTests: XCTestCase {
    /// A database the binary built (the demo's logs ingested), checkpointed so every page is in the file.
    func built(_ tmp: TempDir) throws -> String {
        let db = tmp.file("d.db")
        let r = try Run.pushlog(["--db", db, "demo", tmp.file("logs"), "--devices", "100", "--weeks", "2", "--no-report", "--quiet"])
        XCTAssertEqual(r.status, 0, r.stderr)
        try Database(path: db, readOnly: false).exec("PRAGMA wal_checkpoint(TRUNCATE)")
        return db
    }

    /// The pages of a table's or index's b-tree of one type (`leaf`, `internal`), in tree order.
    func pages(_ name: String, _ type: String, _ db: String) throws -> [Int64] {
        let c = try Database(path: db, readOnly: false)
        let s = try c.prepare("SELECT pageno FROM dbstat WHERE name = ?1 AND pagetype = ?2")
        s.bind(1, name)
        s.bind(2, type)
        var out: [Int64] = []
        while try s.step() { out.append(s.int(0)) }
        return out
    }

    /// Overwrites one whole page with bytes no page holds.
    func overwrite(page: Int64, of db: String) throws {
        let pageSize = try Database(path: db, readOnly: false).scalarInt("PRAGMA page_size") ?? 4096
        let h = try XCTUnwrap(FileHandle(forWritingAtPath: db))
        try h.seek(toOffset: UInt64((page - 1) * pageSize))
        h.write(Data(repeating: 0x5A, count: Int(pageSize)))
        try h.close()
    }

    func assertNamesTheDamage(_ r: Run, _ db: String, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(r.status, 1, "\(what): \(r.stderr)", file: file, line: line)
        XCTAssertTrue(r.stderr.contains("\(db) is damaged"), "\(what): \(r.stderr)", file: file, line: line)
        XCTAssertTrue(r.stderr.contains("pushlog --db \(db) check"), "\(what): \(r.stderr)", file: file, line: line)
    }

    func testADamagedSendsPageIsFoundByCheckAndStopsEveryCommandThatMeetsIt() throws {
        let tmp = TempDir(), db = try built(tmp)
        let healthy = try Run.pushlog(["--db", db, "check"])
        XCTAssertEqual(healthy.status, 0, healthy.stdout + healthy.stderr)
        XCTAssertTrue(healthy.stderr.contains("is healthy"), healthy.stderr)
        let leaves = try pages("sends", "leaf", db)
        XCTAssertGreaterThan(leaves.count, 10)
        try overwrite(page: leaves[2], of: db)

        let check = try Run.pushlog(["--db", db, "check", "--format", "tsv"])
        XCTAssertEqual(check.status, 1, check.stderr)
        XCTAssertTrue(check.stdout.contains("integrity_check\tsends"), check.stdout)
        XCTAssertTrue(check.stderr.contains("\(db) is damaged"), check.stderr)
        XCTAssertEqual(try Run.pushlog(["--db", db, "check", "--quick"]).status, 1)
        // The reports that read the page, ad-hoc SQL over it, and an ingest whose facts lead to it.
        for args in [["report", "gone"], ["report", "churn"], ["report", "weekly"], ["metrics"], ["query", "SELECT * FROM sends"]] {
            assertNamesTheDamage(try Run.pushlog(["--db", db] + args), db, args.joined(separator: " "))
        }
        let log = tmp.write(
            "new.ndjson", "{\"time\":\"2026-12-01T08:00:00Z\",\"event\":\"send\",\"token\":\"\(Self.token(7))\",\"status\":410}\n")
        assertNamesTheDamage(try Run.pushlog(["--db", db, "ingest", log]), db, "ingest")
    }

    func testAFileThatIsNoLongerADatabaseIsDamagedToo() throws {
        let tmp = TempDir(), db = try built(tmp)
        try overwrite(page: 1, of: db)  // the header and the schema
        let check = try Run.pushlog(["--db", db, "check"])
        XCTAssertEqual(check.status, 1, check.stderr)
        XCTAssertTrue(check.stdout.contains("open"), check.stdout)
        for args in [["report", "gone"], ["sources"], ["ingest", tmp.file("logs")]] {
            assertNamesTheDamage(try Run.pushlog(["--db", db] + args), db, args.joined(separator: " "))
        }
    }

    func testCheckFindsBrokenInvariantsOfAnIntactFile() throws {
        let tmp = TempDir(), db = try built(tmp)
        let w = try Database(path: db, readOnly: false)
        // A file that holds more records than it added, and records of no file.
        try w.exec("UPDATE sources SET n_send = 1, n_response = 0, n_request = 0 WHERE id = (SELECT min(source_id) FROM sends)")
        try w.exec(
            """
            UPDATE registers SET source_id = 999
            WHERE (token_id, time_ms, line_hash) IN (SELECT token_id, time_ms, line_hash FROM registers LIMIT 3)
            """)
        // Derived facts that a fresh derivation does not give.
        try w.exec("UPDATE token_facts SET last_reg = last_reg + 1 WHERE last_reg IS NOT NULL")
        try w.exec("DELETE FROM token_runs WHERE rowid IN (SELECT rowid FROM token_runs LIMIT 5)")
        let check = try Run.pushlog(["--db", db, "check", "--sample", "100000", "--format", "tsv"])
        XCTAssertEqual(check.status, 1, check.stderr)
        for expected in [
            "sources\t", "more than the 1 it added", "3 registers rows name source 999", "derived facts\ttoken_facts:",
            "derived facts\ttoken_runs:",
        ] {
            XCTAssertTrue(check.stdout.contains(expected), "\(expected): \(check.stdout)")
        }
        XCTAssertFalse(check.stdout.contains("integrity_check"), "the file itself is intact: \(check.stdout)")
    }

    func testCheckIsForTheSQLiteDatabase() throws {
        let r = try Run.pushlog(["--clickhouse", "http://localhost:1/pushlog", "check"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("check does not run on ClickHouse"), r.stderr)
    }
}
