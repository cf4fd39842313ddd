import Foundation
import XCTest
@testable import PushLogKit

/// Every committed state is consistent: an incremental ingest commits its records and the facts
/// derived from them together, so a report polled during it, or after it was killed, reads
/// either the state before or the state after, never a mix.
final class ConsistencyTests: XCTestCase {
    /// The demo's files split by day: the first two weeks, then the third.
    func demoInTwoParts(_ tmp: TempDir) throws -> (first: [String], second: [String]) {
        var o = smallDemo(devices: 1500)
        o.gzipLevel = 1
        _ = try DemoGenerator(o).write(to: tmp.path + "/logs")
        var first: [String] = [], second: [String] = []
        for sub in ["provider", "app"] {
            let dir = tmp.path + "/logs/" + sub
            let names = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
            for (i, n) in names.enumerated() { (i < 14 ? { first.append(dir + "/" + n) } : { second.append(dir + "/" + n) })() }
        }
        return (first, second)
    }

    func gone(_ db: String) throws -> Run {
        try Run.pushlog(["--db", db, "report", "gone", "--format", "json", "--by", "week"])
    }

    func testReportsDuringAndAfterAKilledIncrementalIngestReadOneState() throws {
        let tmp = TempDir()
        let (first, second) = try demoInTwoParts(tmp)
        let db = tmp.file("c.db")
        XCTAssertEqual(try Run.pushlog(["--db", db, "ingest", "--quiet"] + first).status, 0)
        let before = try gone(db)
        XCTAssertEqual(before.status, 0, before.stderr)

        // The whole corpus in a second database: the state after.
        let all = tmp.file("all.db")
        XCTAssertEqual(try Run.pushlog(["--db", all, "ingest", "--quiet"] + first).status, 0)
        XCTAssertEqual(try Run.pushlog(["--db", all, "ingest", "--quiet"] + second).status, 0)
        let after = try gone(all).stdout

        // Poll during the incremental ingest, then kill -9 it part-way.
        for delay in [0.15, 0.4] {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: Fixtures.binary)
            p.arguments = ["--db", db, "ingest", "--quiet"] + second
            p.standardError = FileHandle.nullDevice
            p.standardOutput = FileHandle.nullDevice
            try p.run()
            let deadline = Date().addingTimeInterval(delay)
            var seen = 0
            while Date() < deadline && p.isRunning {
                let r = try gone(db)
                XCTAssertEqual(r.status, 0, r.stderr)
                XCTAssertEqual(r.stdout, before.stdout, "a report during the ingest read a state between two")
                seen += 1
            }
            XCTAssertTrue(p.isRunning, "the ingest ended before it was killed; make the corpus larger")
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            XCTAssertGreaterThan(seen, 0)
            let killed = try gone(db)
            XCTAssertEqual(killed.status, 0, killed.stderr)
            XCTAssertEqual(killed.stdout, before.stdout, "after kill -9 the database is the one before the run")
        }
        // The next run completes it: the figures of a database that never crashed.
        XCTAssertEqual(try Run.pushlog(["--db", db, "ingest", "--quiet"] + second).status, 0)
        XCTAssertEqual(try gone(db).stdout, after)
        XCTAssertNotEqual(after, before.stdout)
    }

    /// A database whose derived facts are marked stale (a bulk load killed before it finished,
    /// a refresh that failed) is refused with the command to run; ingest then rebuilds them.
    func testStaleDerivedFactsAreRefusedOutLoud() throws {
        let tmp = TempDir()
        let db = tmp.file("s.db")
        _ = try ingest([Fixtures.path("reports.ndjson")], db: db)
        let good = try Run.pushlog(["--db", db, "report", "gone", "--format", "json"]).stdout
        try Store.openForWriting(path: db).exec("UPDATE meta SET value = 1 WHERE key = 'derived_stale'")
        let r = try Run.pushlog(["--db", db, "report", "gone"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("has not finished") && r.stderr.contains("ingest"), r.stderr)
        XCTAssertEqual(r.stdout, "")
        let empty = tmp.file("empty")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        XCTAssertEqual(try Run.pushlog(["--db", db, "ingest", empty]).status, 0)
        XCTAssertEqual(try Run.pushlog(["--db", db, "report", "gone", "--format", "json"]).stdout, good)
    }
}
