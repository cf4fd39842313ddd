import Foundation
import XCTest
@testable import PushLogKit

/// The one ingest, run as users run it on both engines: copies of files already loaded add
/// nothing and count as duplicates, a resumed read on ClickHouse numbers repeats on, and
/// `--follow` shows one status line. ClickHouse is chDB behind scripts/clickhouse_http.py.
final class OneIngestTests: XCTestCase {
    /// 300 sends, each line once, in an hour.
    static func sendsLog() -> [UInt8] {
        Array(
            (0..<300).map { i in
                String(
                    format: "{\"time\":\"2026-11-02T08:%02d:%02dZ\",\"event\":\"send\",\"token\":\"%064x\",\"status\":200}\n",
                    i / 5, i % 60, i + 1)
            }.joined().utf8)
    }

    /// The file, a renamed copy and a re-gzipped copy, each ingested on its own: the copies add
    /// no record and count every record as a duplicate.
    func checkCopies(_ base: [String], _ tmp: TempDir) throws {
        let bytes = Self.sendsLog()
        let original = tmp.write("sends.ndjson.gz", bytes: try GzipWriter.compress(bytes))
        let renamed = tmp.file("copy-of-sends.ndjson.gz")
        try FileManager.default.copyItem(atPath: original, toPath: renamed)
        let regzipped = tmp.write("sends-again.ndjson.gz", bytes: try GzipWriter.compress(bytes, level: 1))
        for (path, records, duplicates) in [(original, 300, 0), (renamed, 0, 300), (regzipped, 0, 300)] {
            let r = try Run.pushlog(base + ["ingest", "--format", "json", path])
            XCTAssertEqual(r.status, 0, r.stderr)
            let totals = try XCTUnwrap(
                (try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])?["totals"] as? [String: Any], r.stdout)
            XCTAssertEqual((totals["records"] as? [String: Any])?["send"] as? Int ?? 0, records, "\(base) \(path): \(r.stdout)")
            XCTAssertEqual(totals["duplicates"] as? Int, duplicates, "\(base) \(path): \(r.stdout)")
        }
    }

    func testCopiesOfLoadedFilesAreDuplicatesOnSQLite() throws {
        let tmp = TempDir()
        try checkCopies(["--db", tmp.file("p.db")], tmp)
    }

    func testCopiesOfLoadedFilesAreDuplicatesOnClickHouse() throws {
        let server = try ChDBServer.start()
        defer { server.stop() }
        let tmp = TempDir()
        try checkCopies(["--clickhouse", server.url("copies")], tmp)
        // trace names the file the records were first read from.
        let r = try Run.pushlog(["--clickhouse", server.url("copies"), "trace", String(format: "%064x", 7), "--format", "tsv"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("/sends.ndjson.gz"), r.stdout)
        XCTAssertFalse(r.stdout.contains("copy-of-sends") || r.stdout.contains("sends-again"), r.stdout)
    }

    /// A file grown after a read, holding one long run of repeats (as ResumeNumberingTests'):
    /// the resumed read numbers them on from the runs open where the first read ended, so the two
    /// reads store every line once, as a whole read does.
    func testRepeatsAcrossAResumedReadOnClickHouseAreNumberedOn() throws {
        let server = try ChDBServer.start()
        defer { server.stop() }
        let tmp = TempDir(), url = server.url("resume")
        let p = tmp.file("r.log")
        let total = ResumeNumberingTests.total
        var added = 0
        for part in [0..<70_000, 70_000..<total] {
            let bytes = Data(ResumeNumberingTests.text(part))
            if let h = FileHandle(forWritingAtPath: p) {
                h.seekToEndOfFile()
                h.write(bytes)
                try h.close()
            } else {
                try bytes.write(to: URL(fileURLWithPath: p))
            }
            let r = try Run.pushlog(["--clickhouse", url, "ingest", "--batch", "30000", "--format", "json", p])
            XCTAssertEqual(r.status, 0, r.stderr)
            let totals = try XCTUnwrap(
                (try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])?["totals"] as? [String: Any], r.stdout)
            XCTAssertEqual(totals["duplicates"] as? Int, 0, r.stdout)
            added += (totals["records"] as? [String: Any])?["send"] as? Int ?? 0
        }
        XCTAssertEqual(added, total)
        let q = try Run.pushlog(["--clickhouse", url, "query", "SELECT count() AS n FROM records FINAL", "--format", "tsv"])
        XCTAssertEqual(q.status, 0, q.stderr)
        XCTAssertTrue(q.stdout.contains("\(total)"), q.stdout)
    }

    /// RotationTests' rotated set, on ClickHouse: a burst of identical lines split across the
    /// files of the set keeps every line (each file counted on from those before it), and copies
    /// of the set's files add nothing.
    func testARotatedSetOnClickHouseKeepsEveryLineOfABurst() throws {
        let server = try ChDBServer.start()
        defer { server.stop() }
        let tmp = TempDir(), dir = tmp.file("logs"), url = server.url("rotation")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try (RotationTests.distinct(1...2) + RotationTests.burst(3, 2)).write(toFile: dir + "/app.log.2", atomically: true, encoding: .utf8)
        try (RotationTests.burst(3, 1) + RotationTests.distinct(4...4) + RotationTests.burst(5, 1)).write(
            toFile: dir + "/app.log.1", atomically: true, encoding: .utf8)
        try (RotationTests.burst(5, 2) + RotationTests.distinct(6...6)).write(toFile: dir + "/app.log", atomically: true, encoding: .utf8)
        func totals(_ paths: [String]) throws -> (records: Int, duplicates: Int) {
            let r = try Run.pushlog(["--clickhouse", url, "ingest", "--format", "json"] + paths)
            XCTAssertEqual(r.status, 0, r.stderr)
            let t = try XCTUnwrap(
                (try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])?["totals"] as? [String: Any], r.stdout)
            return ((t["records"] as? [String: Any])?["send"] as? Int ?? 0, t["duplicates"] as? Int ?? -1)
        }
        // Named newest first: read oldest first all the same.
        let first = try totals([dir + "/app.log", dir + "/app.log.1", dir + "/app.log.2"])
        XCTAssertEqual(first.records, 10)
        XCTAssertEqual(first.duplicates, 0)
        let copies = tmp.file("copies")
        try FileManager.default.createDirectory(atPath: copies, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: dir + "/app.log.1", toPath: copies + "/elsewhere.log")
        let again = try totals([copies])
        XCTAssertEqual(again.records, 0)
        XCTAssertEqual(again.duplicates, 3)
        let q = try Run.pushlog([
            "--clickhouse", url, "query", "SELECT intDiv(time_ms, 1000) % 60 AS s, count() AS n FROM records FINAL GROUP BY s ORDER BY s",
            "--format", "csv",
        ])
        XCTAssertEqual(q.status, 0, q.stderr)
        XCTAssertEqual(q.stdout, "s,n\n1,1\n2,1\n3,3\n4,1\n5,3\n6,1\n", q.stdout)
    }

    /// logrotate's rename between two batch ingests, in the middle of a burst: the old file's
    /// records were stored under the path the new file now has, and the new file's first line,
    /// identical to the old file's last, is a line of its own on both engines.
    func testARenameBetweenTwoIngestsKeepsTheBurstOnBothEngines() throws {
        let server = try ChDBServer.start()
        defer { server.stop() }
        let tmp = TempDir()
        var listings: [[String]] = []
        for (i, base) in [["--db", tmp.file("r.db")], ["--clickhouse", server.url("renamed")]].enumerated() {
            let dir = tmp.file("logs\(i)")
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            try (RotationTests.distinct(1...1) + RotationTests.burst(5, 1)).write(
                toFile: dir + "/app.log", atomically: true, encoding: .utf8)
            XCTAssertEqual(try Run.pushlog(base + ["ingest", "--quiet", dir]).status, 0)
            try FileManager.default.moveItem(atPath: dir + "/app.log", toPath: dir + "/app.log.1")
            try (RotationTests.burst(5, 1) + RotationTests.distinct(6...6)).write(
                toFile: dir + "/app.log", atomically: true, encoding: .utf8)
            let again = try Run.pushlog(base + ["ingest", "--quiet", dir])
            XCTAssertEqual(again.status, 0, again.stderr)
            let q = try Run.pushlog(base + ["query", "SELECT count(*) AS n FROM sends_v", "--format", "csv"])
            XCTAssertEqual(q.stdout, "n\n4\n", "\(base[0]): \(q.stderr)")
            // The old file's row is kept under a name of its own, its counts with it.
            let listed = try Run.pushlog(base + ["sources", "--format", "tsv"]).stdout.split(separator: "\n").dropFirst()
            listings.append(listed.map { $0.split(separator: "\t").prefix(5).joined(separator: " ").replacing(dir, with: "DIR") })
            listings[i] = listings[i].map { $0.replacing(/\ \(replaced [^)]*\)/, with: " (replaced)") }
        }
        XCTAssertEqual(listings.count, 2)
        XCTAssertEqual(listings[0], listings[1])
        XCTAssertEqual(listings[0].count, 3, "\(listings[0])")
        XCTAssertTrue(listings[0].contains { $0.hasPrefix("DIR/app.log (replaced) ") }, "\(listings[0])")
    }

    /// A rotated file whose records all fall in the second the next one begins with cannot be
    /// told from a copy: its identical lines are taken as one each, and `sources` says how many
    /// on both engines, in the same row as the duplicates they are counted with.
    func testAmbiguousRecordsOfARotationAreCountedInSourcesOnBothEngines() throws {
        let server = try ChDBServer.start()
        defer { server.stop() }
        let tmp = TempDir(), dir = tmp.file("logs")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try RotationTests.burst(3, 2).write(toFile: dir + "/app.log.1", atomically: true, encoding: .utf8)
        try (RotationTests.burst(3, 1) + RotationTests.distinct(4...4)).write(toFile: dir + "/app.log", atomically: true, encoding: .utf8)
        var listings: [String] = []
        for base in [["--db", tmp.file("a.db")], ["--clickhouse", server.url("ambiguous")]] {
            XCTAssertEqual(try Run.pushlog(base + ["ingest", "--quiet", dir]).status, 0)
            let r = try Run.pushlog(base + ["sources", "--format", "csv"])
            XCTAssertEqual(r.status, 0, r.stderr)
            let lines = r.stdout.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) }
            let header = try XCTUnwrap(lines.first)
            let path = try XCTUnwrap(header.firstIndex(of: "path")), duplicates = try XCTUnwrap(header.firstIndex(of: "duplicates"))
            let ambiguous = try XCTUnwrap(header.firstIndex(of: "ambiguous"), "\(header)")
            let live = try XCTUnwrap(lines.first { $0[path].hasSuffix("/app.log") }, r.stdout)
            XCTAssertEqual([live[duplicates], live[ambiguous]], ["1", "1"], "\(base[0]): \(r.stdout)")
            listings.append(lines.map { $0.filter { !$0.contains("T") }.joined(separator: ",") }.joined(separator: "\n"))
        }
        XCTAssertEqual(listings[0], listings[1], "the same counts on both engines")
    }

    /// On a terminal (script(1)), `--follow` redraws one status line in place and tells a file's
    /// first passed-over line once, however many rounds read it; off a terminal the status is a
    /// line now and then (here: when it starts and when it stops), never a line per round.
    func testFollowShowsOneStatusLine() throws {
        guard Shell.has("script"), Shell.has("timeout") else { throw XCTSkip("script(1) or timeout(1) is not installed") }
        let tmp = TempDir()
        let dir = tmp.file("logs")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixtures.path("gorush-api.log"), toPath: dir + "/gorush.log")
        let db = tmp.file("f.db")
        let tty = try Shell.tty(
            "LANG=C.UTF-8", "timeout -s INT 3 \(Fixtures.binary) --db \(db) ingest --follow --interval 0.2 \(dir)")
        let screen = tty.stdout
        XCTAssertTrue(
            screen.contains(
                "\r\u{1B}[Kfollowing 1 file: 1 record added, 1 line rejected (pushlog rejects), 1 line passed over, 0 rotations seen"),
            screen)
        XCTAssertGreaterThan(screen.components(separatedBy: "\r\u{1B}[Kfollowing 1 file:").count, 3, "redrawn each round:\n\(screen)")
        XCTAssertTrue(screen.contains("newest record "), screen)
        XCTAssertEqual(screen.components(separatedBy: "lines passed over (not gorush records), the first: line 1:").count, 2, screen)
        XCTAssertFalse(screen.contains("total:"), "no summary line per round:\n\(screen)")

        let p = Process()
        p.executableURL = URL(fileURLWithPath: Fixtures.binary)
        p.arguments = ["--db", db, "ingest", "--follow", "--interval", "0.2", dir]
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        Thread.sleep(forTimeInterval: 2)
        p.interrupt()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, text)
        XCTAssertFalse(text.contains("\u{1B}"), text)
        XCTAssertEqual(text.components(separatedBy: "following 1 file:").count - 1, 2, text)
    }
}
