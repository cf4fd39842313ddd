import Foundation
import XCTest
@testable import PushLogKit

/// `ingest --follow` on the built binary: growing files, rotation by rename and by truncation,
/// new files (gzip read once complete), SIGTERM (exit 0, everything committed) and kill -9
/// (a plain ingest completes it exactly). Waits poll the database, bounded at 15 s each.
final class FollowTests: XCTestCase {
    /// One send record (`n` makes its line, and so its identity, unique); every fourth line also
    /// registers the token for one of seven devices, so tokens rotate and derived facts move.
    func line(_ n: Int) -> String {
        var s = String(
            format: "{\"time\":\"2026-11-02T08:%02d:%02dZ\",\"event\":\"send\",\"token\":\"%064x\",\"status\":%d}\n",
            n / 60 % 60, n % 60, n, n % 5 == 0 ? 410 : 200)
        if n % 4 == 0 {
            s += String(
                format:
                    "{\"time\":\"2026-11-02T07:%02d:%02dZ\",\"event\":\"register\",\"token\":\"%064x\",\"device\":\"dev-%d\",\"env\":\"production\",\"auth\":\"authorized\"}\n",
                n / 60 % 60, n % 60, n, n % 7)
        }
        return s
    }

    func append(_ path: String, _ ns: ClosedRange<Int>) throws {
        let text = ns.map(line).joined()
        if let h = FileHandle(forWritingAtPath: path) {
            h.seekToEndOfFile()
            h.write(Data(text.utf8))
            try h.close()
        } else {
            try text.write(toFile: path, atomically: false, encoding: .utf8)
        }
    }

    func sends(_ db: String) -> Int64 { (try? count("SELECT count(*) FROM sends", db: db)) ?? -1 }

    func waitFor(_ n: Int64, _ db: String, file: StaticString = #filePath, line: UInt = #line) {
        let deadline = Date().addingTimeInterval(15)
        while sends(db) != n && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        XCTAssertEqual(sends(db), n, file: file, line: line)
    }

    func start(_ args: [String]) throws -> (Process, Pipe) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Fixtures.binary)
        p.arguments = args
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        return (p, err)
    }

    func testFollowGrowthRotationTruncationNewFilesAndSIGTERM() throws {
        let tmp = TempDir()
        let dir = tmp.file("logs")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let db = tmp.file("f.db")
        let app = dir + "/app.log"
        try append(app, 1...3)
        let (p, err) = try start(["--db", db, "ingest", "--follow", "--interval", "0.1", dir, app])
        waitFor(3, db)
        // Growth.
        try append(app, 4...5)
        waitFor(5, db)
        // Rotation by rename: a line written just before the move is read from the moved file.
        try append(app, 6...6)
        try FileManager.default.moveItem(atPath: app, toPath: dir + "/app.log.1")
        try append(app, 7...8)
        waitFor(8, db)
        // The moved file kept its source: it resumed where it was, nothing read twice.
        let moved = try rows("SELECT lines, duplicates FROM sources WHERE path LIKE '%/app.log.1'", db)
        XCTAssertEqual(moved.count, 1)
        XCTAssertEqual(moved.first?[1], .int(0), "the renamed file was not read again from its start")
        // copytruncate: the copy's lines are duplicates, the truncated file starts again at 0.
        try FileManager.default.copyItem(atPath: app, toPath: dir + "/app.log.2")
        try "".write(toFile: app, atomically: false, encoding: .utf8)
        try append(app, 9...9)
        waitFor(9, db)
        // A new gzip file, moved in complete.
        let gz = tmp.file("c.ndjson.gz")
        let bytes = try GzipWriter.compress(Array((10...12).map(line).joined().utf8), level: 1)
        _ = FileManager.default.createFile(atPath: gz, contents: Data(bytes))
        try FileManager.default.moveItem(atPath: gz, toPath: dir + "/c.ndjson.gz")
        waitFor(12, db)
        // A gzip still being written (logrotate compressing): what it holds is read, the rest
        // when it grows, and it is never called truncated.
        let big = try GzipWriter.compress(Array((13...400).map(line).joined().utf8), level: 1)
        let half = big.count / 2
        _ = FileManager.default.createFile(atPath: dir + "/d.ndjson.gz", contents: Data(big[..<half]))
        Thread.sleep(forTimeInterval: 0.6)
        let h = try XCTUnwrap(FileHandle(forWritingAtPath: dir + "/d.ndjson.gz"))
        h.seekToEndOfFile()
        h.write(Data(big[half...]))
        try h.close()
        waitFor(400, db)
        p.terminate()  // SIGTERM
        p.waitUntilExit()
        let said = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(p.terminationStatus, 0, said)
        XCTAssertFalse(said.contains("truncated"), said)
        XCTAssertEqual(try count("SELECT count(DISTINCT token_id) FROM sends_v", db: db), 400, "each record once")
        // A plain ingest afterwards finds nothing new.
        let again = try ingest([dir], db: db)
        XCTAssertEqual(again.totalRecords, 0)
        // Derived facts, refreshed incrementally round by round, equal a fresh ingest's.
        let fresh = tmp.file("fresh.db")
        _ = try ingest([dir], db: fresh)
        for report in ["gone", "churn", "silent", "env-mismatch"] {
            let a = try Run.pushlog(["--db", db, "report", report, "--format", "json"]).stdout
            let b = try Run.pushlog(["--db", fresh, "report", report, "--format", "json"]).stdout
            XCTAssertEqual(a, b, report)
        }
    }

    func testKillNineWhileFollowingIsCompletedByAPlainIngest() throws {
        let tmp = TempDir()
        let dir = tmp.file("logs")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let db = tmp.file("k.db")
        try append(dir + "/a.log", 1...2)
        let (p, _) = try start(["--db", db, "ingest", "--follow", "--interval", "0.1", dir])
        waitFor(2, db)
        // A large append, killed while it is being read: a round commits its records and their
        // derived facts together, so the database holds the round before or the whole append.
        try append(dir + "/a.log", 3...60_000)
        Thread.sleep(forTimeInterval: 0.3)
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        XCTAssertTrue([2, 60_000].contains(sends(db)), "one committed state, not part of a round: \(sends(db))")
        XCTAssertEqual(try count("SELECT value FROM meta WHERE key = 'derived_stale'", db: db), 0)
        _ = try ingest([dir], db: db)
        XCTAssertEqual(sends(db), 60_000)
        XCTAssertEqual(try count("SELECT count(DISTINCT token_id) FROM sends_v", db: db), 60_000)
    }
}
