import Foundation
import XCTest
@testable import PushLogKit

/// Where a database lives: someone else's SQLite file is never touched, and a shared copy the
/// user can read but not write (file and folder) answers every read-only command.
final class DatabasePlacesTests: XCTestCase {
    func testSomeoneElsesDatabaseIsRefusedAndLeftAlone() throws {
        guard Shell.has("sqlite3") else { throw XCTSkip("needs the sqlite3 shell") }
        let tmp = TempDir()
        let other = tmp.file("shop.db")
        XCTAssertEqual(try Shell.run("sqlite3 \(other) 'CREATE TABLE orders(id INTEGER); INSERT INTO orders VALUES (1);'").status, 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: other))
        for args in [["report", "gone"], ["ingest", Fixtures.path("reports.ndjson")], ["prune", "--before", "1d", "--yes"], ["sources"]] {
            let r = try Run.pushlog(["--db", other] + args)
            XCTAssertEqual(r.status, 1, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("is not a pushlog database (it holds the tables orders"), r.stderr)
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: other)), before)
        XCTAssertFalse(FileManager.default.fileExists(atPath: other + "-wal"))
        XCTAssertEqual(try Shell.run("sqlite3 \(other) 'PRAGMA journal_mode; PRAGMA user_version'").stdout, "delete\n0\n")
    }

    func testReadOnlyCopyAnswersWithTheSameFigures() throws {
        let tmp = TempDir()
        let shared = tmp.file("shared")
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: true)
        let db = shared + "/pushlog.db"
        _ = try ingest([Fixtures.path("reports.ndjson")], db: db)
        let commands = [
            ["report", "gone", "--format", "csv"], ["report", "weekly", "--week", "2026-W45", "--format", "json"],
            ["query", "SELECT count(*) FROM responses"], ["trace", "dev4", "--format", "csv"],
        ]
        let expected = try commands.map { try Run.pushlog(["--db", db] + $0).stdout }
        // A copy handed over is one file (checkpointed); then nobody may write file or folder.
        try Store.openForWriting(path: db).exec("PRAGMA wal_checkpoint(TRUNCATE)")
        for f in [db + "-wal", db + "-shm", db + ".lock"] { try? FileManager.default.removeItem(atPath: f) }
        let bin = tmp.file("pushlog")
        try FileManager.default.copyItem(atPath: Fixtures.binary, toPath: bin)
        XCTAssertEqual(try Shell.run("chmod 0755 \(tmp.path) \(bin) && chmod 0444 \(db) && chmod 0555 \(shared)").status, 0)
        defer { _ = try? Shell.run("chmod -R u+w \(shared)") }
        // As root, permissions do not bind: run as nobody.
        let asUser = getuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : ""
        if getuid() == 0 && !Shell.has("setpriv") { throw XCTSkip("needs setpriv to drop root") }
        for (args, want) in zip(commands, expected) {
            let quoted = args.map { "'\($0)'" }.joined(separator: " ")
            let r = try Shell.run("cd / && \(asUser)\(bin) --db \(db) \(quoted)")
            XCTAssertEqual(r.status, 0, "\(args): \(r.stderr)")
            XCTAssertEqual(r.stdout, want, "\(args)")
        }
        // metrics too (its ages follow the clock, so only that it answers).
        XCTAssertEqual(try Shell.run("cd / && \(asUser)\(bin) --db \(db) metrics").status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: db + "-shm"))
    }
}

extension DatabasePlacesTests {
    /// Another user's owner-only database: every command says it is a matter of permission,
    /// naming the file and its owner, not SQLite's "unable to open database file".
    func testAnOwnerOnlyDatabaseIsAPermissionProblem() throws {
        guard getuid() == 0 else { throw XCTSkip("needs root to make a database another user cannot open") }
        guard Shell.has("setpriv") else { throw XCTSkip("needs setpriv to drop root") }
        let tmp = TempDir()
        let db = tmp.file("root-only.db")
        XCTAssertEqual(try Run.pushlog(["--db", db, "ingest", "--quiet", Fixtures.path("reports.ndjson")]).status, 0)
        let bin = tmp.file("pushlog")
        try FileManager.default.copyItem(atPath: Fixtures.binary, toPath: bin)
        XCTAssertEqual(try Shell.run("chmod 0755 \(tmp.path) \(bin) && chmod 0600 \(db)").status, 0)
        for args in ["report gone", "query 'SELECT 1'", "sources", "rejects"] {
            let r = try Shell.run("cd / && setpriv --reuid=65534 --regid=65534 --clear-groups \(bin) --db \(db) \(args)")
            XCTAssertEqual(r.status, 1, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("permission denied opening the database \(db)"), "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("mode 0600, owned by root"), "\(args): \(r.stderr)")
            XCTAssertFalse(r.stderr.contains("SQLite error 14"), "\(args): \(r.stderr)")
        }
    }
}
