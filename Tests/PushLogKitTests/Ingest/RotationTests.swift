import Foundation
import XCTest
@testable import PushLogKit

/// A log rotated in the middle of a burst of identical lines (gorush: 1-second times, no
/// apns-id, a retry in the same second writes the same line) loses none of them: by rename, by
/// copytruncate and with the old file gzipped, under `ingest --follow` on the built binary and in
/// a later ingest of the rotated set; and a copy of a file read before still adds nothing.
final class RotationTests: XCTestCase {
    /// A gorush line of second `s`: a failed push to token `n` (the same `s` and `n`, the same line).
    static func gorush(_ s: Int, token n: Int = 90) -> String {
        "time=\"2026/11/02 - 08:00:\(s < 10 ? "0" : "")\(s)\" level=error msg=\"| failed-push | ios [\(token(n))] | Hello | Error Message: Unregistered\"\n"
    }
    /// One distinct line per second in `seconds` (each to its own token).
    static func distinct(_ seconds: ClosedRange<Int>) -> String { seconds.map { gorush($0, token: 100 + $0) }.joined() }
    static func burst(_ s: Int, _ n: Int) -> String { String(repeating: gorush(s), count: n) }

    /// Sends per second, the figure a rotation must not change.
    func perSecond(_ db: String) throws -> [[SQLValue]] {
        try rows("SELECT time_ms / 1000 % 60, count(*) FROM sends GROUP BY 1 ORDER BY 1", db)
    }

    func gzip(_ from: String, to: String) throws {
        let bytes = try GzipWriter.compress(Array(try Data(contentsOf: URL(fileURLWithPath: from))))
        _ = FileManager.default.createFile(atPath: to, contents: Data(bytes))
    }

    func testARotatedSetReadLaterKeepsEveryLineOfABurstAcrossItsFiles() throws {
        let tmp = TempDir(), dir = tmp.file("logs")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        // Three rotations, each in the middle of a burst: a rename gzipped later, a dated file,
        // and the live file.
        try (Self.distinct(1...2) + Self.burst(3, 2)).write(toFile: dir + "/app.log.2", atomically: true, encoding: .utf8)
        try gzip(dir + "/app.log.2", to: dir + "/app.log.2.gz")
        try FileManager.default.removeItem(atPath: dir + "/app.log.2")
        try (Self.burst(3, 1) + Self.distinct(4...4) + Self.burst(5, 1)).write(
            toFile: dir + "/app.log.1", atomically: true, encoding: .utf8)
        try (Self.burst(5, 2) + Self.distinct(6...6)).write(toFile: dir + "/app.log", atomically: true, encoding: .utf8)
        let db = tmp.file("set.db")
        let s = try ingest([dir], db: db)
        XCTAssertEqual(s.totalRecords, 10)
        XCTAssertEqual(s.duplicates, 0)
        XCTAssertEqual(try perSecond(db), [1, 2, 3, 4, 5, 6].map { [.int($0), .int($0 == 3 || $0 == 5 ? 3 : 1)] })
        // Named in any order, the set is read oldest first: the same records.
        let named = tmp.file("named.db")
        _ = try ingest([dir + "/app.log", dir + "/app.log.1", dir + "/app.log.2.gz"], db: named)
        XCTAssertEqual(try perSecond(named), try perSecond(db))
        // A copy of a rotated file, renamed, gzipped again or under a dated name, adds nothing;
        // so does one outside the set and the set itself read again.
        let copies = tmp.file("copies")
        try FileManager.default.createDirectory(atPath: copies, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: dir + "/app.log.1", toPath: copies + "/elsewhere.log")
        try gzip(dir + "/app.log.1", to: dir + "/app.log-20261102.gz")
        try gzip(dir + "/app.log", to: dir + "/app.log.0.gz")
        let again = try ingest([dir, copies], db: db)
        XCTAssertEqual(again.totalRecords, 0)
        XCTAssertEqual(again.duplicates, 3 * 3)
        XCTAssertEqual(try count("SELECT count(*) FROM sends", db: db), 10)
    }

    func testCopytruncateSeenByALaterIngestKeepsTheNewFilesFirstLines() throws {
        let tmp = TempDir(), dir = tmp.file("logs")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let app = dir + "/app.log", db = tmp.file("c.db")
        try (Self.distinct(1...2) + Self.burst(3, 1)).write(toFile: app, atomically: true, encoding: .utf8)
        XCTAssertEqual(try ingest([dir], db: db).totalRecords, 3)
        // logrotate's copytruncate: the copy holds a line written after the last ingest, and the
        // truncated file starts with the same retry again.
        try (Self.distinct(1...2) + Self.burst(3, 2)).write(toFile: dir + "/app.log.1", atomically: true, encoding: .utf8)
        try (Self.burst(3, 1) + Self.distinct(4...4)).write(toFile: app, atomically: true, encoding: .utf8)
        let s = try ingest([dir], db: db)
        XCTAssertEqual(s.totalRecords, 3, "the copy's new line, and the new file's two")
        XCTAssertEqual(try perSecond(db), [[.int(1), .int(1)], [.int(2), .int(1)], [.int(3), .int(3)], [.int(4), .int(1)]])
        // The file the path held before keeps its row under a name of its own.
        let paths = try rows("SELECT path, n_send FROM sources ORDER BY id", db)
        XCTAssertEqual(paths.count, 3)
        XCTAssertTrue("\(paths[0][0])".contains("app.log (replaced "), "\(paths)")
        // Read again, and read fresh as a set, the same.
        XCTAssertEqual(try ingest([dir], db: db).totalRecords, 0)
        let fresh = tmp.file("fresh.db")
        _ = try ingest([dir], db: fresh)
        XCTAssertEqual(try perSecond(fresh), try perSecond(db))
    }

    func testTheNewFileGrownInsideTheBurstKeepsCounting() throws {
        let tmp = TempDir(), dir = tmp.file("logs")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let db = tmp.file("g.db")
        try (Self.distinct(1...1) + Self.burst(2, 2)).write(toFile: dir + "/app.log.1", atomically: true, encoding: .utf8)
        try append(dir + "/app.log", Self.burst(2, 1))
        XCTAssertEqual(try ingest([dir], db: db).totalRecords, 4)
        // Resumed where it stopped, the file still counts on from the one before it.
        try append(dir + "/app.log", Self.burst(2, 1))
        let s = try ingest([dir], db: db)
        XCTAssertEqual(s.files.first { !$0.unchanged }?.resumedAfterLine, 1)
        XCTAssertEqual(s.totalRecords, 1)
        XCTAssertEqual(try count("SELECT count(*) FROM sends", db: db), 5)
    }

    func testARotatedFileOfOneSecondIsCountedAsAmbiguousNotDroppedSilently() throws {
        let tmp = TempDir(), dir = tmp.file("logs")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        // The old file's records all fall in the second the new one begins: a copy would look the same.
        try Self.burst(3, 2).write(toFile: dir + "/app.log.1", atomically: true, encoding: .utf8)
        try (Self.burst(3, 1) + Self.distinct(4...4)).write(toFile: dir + "/app.log", atomically: true, encoding: .utf8)
        let s = try ingest([dir], db: tmp.file("a.db"))
        XCTAssertEqual(s.totalRecords, 3)
        let live = try XCTUnwrap(s.files.first { $0.path.hasSuffix("/app.log") })
        XCTAssertEqual(live.duplicates, 1)
        XCTAssertTrue(live.warnings.contains { $0.hasPrefix("1 record identical to those of a rotated file") }, "\(live.warnings)")
    }

    func testRotationNames() {
        let cases: [(String, String, RotationName.Age)] = [
            ("/l/app.log", "/l/app.log", .current),
            ("/l/app.log.1", "/l/app.log", .numbered(1)),
            ("/l/app.log.12.gz", "/l/app.log", .numbered(12)),
            ("/l/app.log-20261102", "/l/app.log", .dated("20261102")),
            ("/l/app.log-2026-11-02.gz", "/l/app.log", .dated("2026-11-02")),
            ("/l/app-2026.log", "/l/app-2026.log", .current),
            ("/l/my-app.log-20261102-1730000000.gz", "/l/my-app.log", .dated("20261102-1730000000")),
            ("/l/app.log (replaced 2026-11-02T08:00:00Z)", "/l/app.log", .replaced("2026-11-02T08:00:00Z)")),
            ("/l/my-app.log", "/l/my-app.log", .current),
            ("/l/v1.2.3-rc", "/l/v1.2.3-rc", .current),
            ("/l/.1", "/l/.1", .current),
        ]
        for (path, stem, age) in cases {
            XCTAssertEqual(RotationName(path).stem, stem, path)
            XCTAssertEqual(RotationName(path).age, age, path)
        }
        let order = RotationName.oldestFirst(
            ["/l/b.log", "/l/app.log", "/l/app.log.1", "/l/app.log-20261101", "/l/app.log.2.gz", "/l/c.log"].map {
                InputFile(path: $0)
            })
        XCTAssertEqual(
            order.map(\.path), ["/l/b.log", "/l/app.log-20261101", "/l/app.log.2.gz", "/l/app.log.1", "/l/app.log", "/l/c.log"])
    }

    // MARK: under --follow

    func start(_ args: [String]) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Fixtures.binary)
        p.arguments = args
        p.standardError = FileHandle.nullDevice
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        return p
    }

    func waitFor(_ n: Int64, _ db: String, file: StaticString = #filePath, line: UInt = #line) {
        let deadline = Date().addingTimeInterval(15)
        func sends() -> Int64 { (try? count("SELECT count(*) FROM sends", db: db)) ?? -1 }
        while sends() != n && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        XCTAssertEqual(sends(), n, file: file, line: line)
    }

    /// Waits past a few rounds of the follower (0.1 s apart): what is there has been read.
    func settle() { Thread.sleep(forTimeInterval: 0.6) }

    func append(_ path: String, _ text: String) throws {
        if let h = FileHandle(forWritingAtPath: path) {
            h.seekToEndOfFile()
            h.write(Data(text.utf8))
            try h.close()
        } else {
            try text.write(toFile: path, atomically: false, encoding: .utf8)
        }
    }

    func testFollowKeepsEveryLineThroughRenameGzipAndCopytruncate() throws {
        let tmp = TempDir(), dir = tmp.file("logs")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let app = dir + "/app.log", db = tmp.file("f.db")
        try append(app, Self.distinct(1...2) + Self.burst(3, 2))
        let p = try start(["--db", db, "ingest", "--follow", "--interval", "0.1", dir])
        defer { if p.isRunning { p.terminate() } }
        waitFor(4, db)
        // Rename and a new file (logrotate's default), the retry burst going on in it.
        try FileManager.default.moveItem(atPath: app, toPath: dir + "/app.log.1")
        try append(app, Self.burst(3, 1) + Self.distinct(4...4))
        waitFor(6, db)
        // The rotated file compressed (written whole, then the plain one removed): a copy.
        try gzip(dir + "/app.log.1", to: tmp.file("app.log.1.gz"))
        try FileManager.default.moveItem(atPath: tmp.file("app.log.1.gz"), toPath: dir + "/app.log.1.gz")
        try FileManager.default.removeItem(atPath: dir + "/app.log.1")
        settle()
        waitFor(6, db)
        // copytruncate in the middle of the next burst: the older files move up, the live file is
        // copied and emptied, and the retry goes on in it.
        try append(app, Self.burst(5, 1))
        waitFor(7, db)
        try FileManager.default.moveItem(atPath: dir + "/app.log.1.gz", toPath: dir + "/app.log.2.gz")
        try FileManager.default.copyItem(atPath: app, toPath: dir + "/app.log.1")
        try "".write(toFile: app, atomically: false, encoding: .utf8)
        try append(app, Self.burst(5, 2) + Self.distinct(6...6))
        waitFor(10, db)
        settle()
        p.terminate()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        let expected: [[SQLValue]] = [1, 2, 3, 4, 5, 6].map { [.int($0), .int($0 == 3 ? 3 : $0 == 5 ? 3 : 1)] }
        XCTAssertEqual(try perSecond(db), expected)
        // The rotated set read later, into this database (nothing new) and into a fresh one (the same).
        XCTAssertEqual(try ingest([dir], db: db).totalRecords, 0)
        let fresh = tmp.file("fresh.db")
        _ = try ingest([dir], db: fresh)
        XCTAssertEqual(try perSecond(fresh), expected)
        // A renamed, gzipped copy of the file read under --follow adds nothing.
        try gzip(dir + "/app.log.1", to: dir + "/app.log-20261102.gz")
        XCTAssertEqual(try ingest([dir + "/app.log-20261102.gz"], db: db).totalRecords, 0)
        XCTAssertEqual(try ingest([dir + "/app.log-20261102.gz"], db: fresh).totalRecords, 0)
    }
}
