import Foundation
import XCTest
@testable import PushLogKit

/// A resumed read numbers identical records as a whole read of the file does, however long
/// their run of repeats: a grown file (plain or gzip), a first load killed half-way, and
/// `--follow` rounds end with the records a single read into a fresh database stores.
/// Runs the built binary.
final class ResumeNumberingTests: XCTestCase {
    static let distinct = 50
    static let rounds = 2_400

    /// The `n`-th line: 50 distinct sends in three seconds, repeated in the same order, so each
    /// repeat lies 50 lines after the one before and the run of repeats spans the whole file.
    static func line(_ n: Int) -> String {
        let i = n % distinct
        return String(format: "{\"time\":\"2026-11-02T08:00:%02dZ\",\"event\":\"send\",\"token\":\"%064x\",\"status\":200}\n", i % 3, i + 1)
    }

    static func text(_ range: Range<Int>) -> [UInt8] { Array(range.map(line).joined().utf8) }

    static var total: Int { distinct * rounds }

    func append(_ path: String, _ bytes: [UInt8], gzip: Bool = false) throws {
        let data = Data(gzip ? try GzipWriter.compress(bytes) : bytes)
        if let h = FileHandle(forWritingAtPath: path) {
            h.seekToEndOfFile()
            h.write(data)
            try h.close()
        } else {
            try data.write(to: URL(fileURLWithPath: path))
        }
    }

    func sends(_ db: String) -> Int64 { (try? count("SELECT count(*) FROM sends", db: db)) ?? -1 }

    func ingest(_ db: String, _ path: String) throws {
        let r = try Run.pushlog(["--db", db, "ingest", "--quiet", path])
        XCTAssertEqual(r.status, 0, r.stderr)
    }

    /// The sends a single read of `bytes` stores in a fresh database.
    func wholeRead(_ bytes: [UInt8], _ tmp: TempDir, name: String) throws -> Int64 {
        let p = tmp.file("whole-" + name), db = tmp.file("whole-\(name).db")
        try append(p, bytes, gzip: name.hasSuffix(".gz"))
        try ingest(db, p)
        return sends(db)
    }

    func testAGrownFileResumedAfterLongRunsOfRepeatsEqualsAWholeRead() throws {
        for gzip in [false, true] {
            let tmp = TempDir(), db = tmp.file("r.db"), name = gzip ? "r.log.gz" : "r.log"
            let p = tmp.file(name)
            try append(p, Self.text(0..<70_000), gzip: gzip)
            try ingest(db, p)
            try append(p, Self.text(70_000..<Self.total), gzip: gzip)
            try ingest(db, p)
            // A gzip file that grew is read as one stream of its members.
            let whole = try wholeRead(Self.text(0..<Self.total), tmp, name: name)
            XCTAssertEqual(whole, Int64(Self.total), "gzip: \(gzip)")
            XCTAssertEqual(sends(db), whole, "gzip: \(gzip)")
        }
    }

    /// The resume of a first load goes through the same runs of repeats as a grown file's.
    func testAFirstLoadKilledHalfWayThenResumedEqualsAWholeRead() throws {
        let tmp = TempDir(), db = tmp.file("k.db"), p = tmp.file("k.log")
        try append(p, Self.text(0..<Self.total))
        let proc = Process()
        proc.executableURL = URL(fileURLWithPath: Fixtures.binary)
        proc.arguments = ["--db", db, "ingest", "--quiet", "--batch", "2000", p]
        proc.standardError = FileHandle.nullDevice
        proc.standardOutput = FileHandle.nullDevice
        try proc.run()
        // Killed once more than the occurrence window is committed, well before the end.
        let deadline = Date().addingTimeInterval(30)
        var committed: Int64 = 0
        while proc.isRunning && committed < 60_000 && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.01)
            committed = (try? count("SELECT coalesce(max(lines), 0) FROM sources", db: db)) ?? 0
        }
        kill(proc.processIdentifier, SIGKILL)
        proc.waitUntilExit()
        try ingest(db, p)
        XCTAssertEqual(sends(db), Int64(Self.total), "killed after \(committed) lines")
    }

    func testFollowRoundsOfAGrowingFileWithRepeatsEndExact() throws {
        let tmp = TempDir(), db = tmp.file("f.db"), p = tmp.file("f.log")
        let step = 30_000
        try append(p, Self.text(0..<step))
        let proc = Process()
        proc.executableURL = URL(fileURLWithPath: Fixtures.binary)
        proc.arguments = ["--db", db, "ingest", "--follow", "--quiet", p]
        proc.standardError = FileHandle.nullDevice
        proc.standardOutput = FileHandle.nullDevice
        try proc.run()
        defer { if proc.isRunning { proc.terminate(); proc.waitUntilExit() } }
        var end = step
        while true {
            let deadline = Date().addingTimeInterval(30)
            while sends(db) < Int64(end) && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
            XCTAssertEqual(sends(db), Int64(end), "after \(end) lines")
            if end == Self.total { break }
            let next = min(end + step, Self.total)
            try append(p, Self.text(end..<next))
            end = next
        }
        proc.terminate()
        proc.waitUntilExit()
        XCTAssertEqual(sends(db), Int64(Self.total))
    }
}
