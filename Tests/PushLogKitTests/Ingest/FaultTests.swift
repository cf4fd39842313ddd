import Foundation
import XCTest
@testable import PushLogKit

/// Faults and hostile input, through the real binary where processes matter.
final class FaultTests: XCTestCase {
    func demoCorpus(_ tmp: TempDir, devices: Int = 500) throws -> String {
        _ = try DemoGenerator(smallDemo(devices: devices)).write(to: tmp.path + "/logs")
        return tmp.path + "/logs"
    }

    func start(_ args: [String]) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Fixtures.binary)
        p.arguments = args
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        return p
    }

    func testReportWhileIngestingSeesConsistentSnapshots() throws {
        let tmp = TempDir()
        let logs = try demoCorpus(tmp)
        let db = tmp.file("p.db")
        // An empty folder creates the schema, so reports can open the database at once; the
        // real ingest then loads an empty database, which drops the secondary indexes until it ends.
        let empty = tmp.path + "/empty"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        _ = try ingest([empty], db: db)
        let ingestProcess = try start(["--db", db, "ingest", "--quiet", "--batch", "300", logs])
        var last: Int64 = -1
        var runs = 0
        while ingestProcess.isRunning || runs == 0 {
            let r = try Run.pushlog([
                "--db", db, "query", "--format", "csv",
                "SELECT (SELECT count(*) FROM sends_v) AS n, (SELECT coalesce(sum(n_send + n_request + n_response), 0) FROM sources) AS counted",
            ])
            XCTAssertEqual(r.status, 0, r.stderr)
            let cells = r.stdout.split(separator: "\n")[1].split(separator: ",").map { Int64($0) ?? -1 }
            // One snapshot: the rows and the per-source counters committed with them agree.
            XCTAssertEqual(cells[0], cells[1], "rows and source counters from one snapshot")
            XCTAssertGreaterThanOrEqual(cells[0], last)
            last = cells[0]
            // Reports answer, or (while the first load's registrations and receipts are staged)
            // refuse out loud; never a partial answer from a half-loaded database.
            for report in ["gone", "env-mismatch", "silent"] {
                let rep = try Run.pushlog(["--db", db, "report", report, "--format", "json"])
                XCTAssertTrue(
                    rep.status == 0 || rep.status == 1 && rep.stderr.contains("has not finished"),
                    "\(report) during a bulk load: \(rep.stderr)")
            }
            runs += 1
        }
        ingestProcess.waitUntilExit()
        XCTAssertEqual(ingestProcess.terminationStatus, 0)
        XCTAssertGreaterThanOrEqual(runs, 1)  // usually several; never flaky on a fast machine
        XCTAssertEqual(try Run.pushlog(["--db", db, "report", "gone", "--format", "json"]).status, 0)
    }

    /// A first load that stopped before its end (kill -9, a full disk) leaves its registrations and
    /// receipts staged: reports, trace and tokens refuse and say how to finish it; sources and
    /// query still read; the next ingest completes it.
    func testUnfinishedFirstLoadIsRefusedUntilTheNextIngest() throws {
        let tmp = TempDir()
        let fixture = Fixtures.path("reports.ndjson")
        let fresh = tmp.file("fresh.db")
        _ = try ingest([fixture], db: fresh)
        // What a first load killed before finalizing leaves: its registrations staged.
        let db = tmp.file("p.db")
        do {
            let w = try Store.openForWriting(path: db)
            XCTAssertTrue(try ClusteredTable.prepareStaging(w, bulk: true))
            try w.exec("ATTACH DATABASE '\(fresh)' AS f; INSERT INTO registers_load SELECT * FROM f.registers; DETACH DATABASE f")
        }
        XCTAssertEqual(try Run.pushlog(["--db", db, "report", "gone"]).status, 1)
        for args in [["report", "gone"], ["trace", "dev-1"], ["tokens", "--gone"], ["prune", "--before", "2030-01-01", "--yes"]] {
            let r = try Run.pushlog(["--db", db] + args)
            XCTAssertEqual(r.status, 1, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("has not finished") && r.stderr.contains("ingest DIR"), r.stderr)
        }
        XCTAssertEqual(try Run.pushlog(["--db", db, "sources"]).status, 0)
        XCTAssertEqual(try Run.pushlog(["--db", db, "query", "SELECT count(*) FROM registers_load"]).status, 0)
        // The next ingest continues the staged load (the staged rows are duplicates it skips)
        // and moves it into the tables.
        XCTAssertEqual(try Run.pushlog(["--db", db, "ingest", "--quiet", fixture]).status, 0)
        XCTAssertGreaterThan(try count("SELECT count(*) FROM registers", db: db), 0)
        XCTAssertEqual(try count("SELECT count(*) FROM sqlite_master WHERE name LIKE '%_load'", db: db), 0)
        for table in ["registers", "receipts"] {
            XCTAssertEqual(
                try rows("SELECT * FROM \(table) ORDER BY time_ms, line_hash", db),
                try rows("SELECT * FROM \(table) ORDER BY time_ms, line_hash", fresh))
        }
    }

    func testConcurrentIngestsWaitForEachOther() throws {
        let tmp = TempDir()
        let logs = try demoCorpus(tmp)
        let reference = tmp.file("ref.db")
        _ = try ingest([logs], db: reference)
        let db = tmp.file("p.db")
        let a = try start(["--db", db, "ingest", "--quiet", "--batch", "500", logs])
        let b = try start(["--db", db, "ingest", "--quiet", "--batch", "500", logs])
        a.waitUntilExit()
        b.waitUntilExit()
        XCTAssertEqual(a.terminationStatus, 0)
        XCTAssertEqual(b.terminationStatus, 0)
        for table in ["sends", "registers", "settings", "receipts", "token_runs", "device_facts"] {
            XCTAssertEqual(
                try count("SELECT count(*) FROM \(table)", db: db), try count("SELECT count(*) FROM \(table)", db: reference), table)
        }
        // --no-wait fails clearly while another writer holds the database.
        let holder = try WriterLock(databasePath: db)
        let r = try Run.pushlog(["--db", db, "ingest", "--no-wait", "--quiet", Fixtures.path("canonical.ndjson")])
        withExtendedLifetime(holder) {}
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("busy"), r.stderr)
    }

    func testHostileLinesAreRejectedAndTheRestKept() throws {
        let tmp = TempDir()
        let good = "{\"time\":\"2026-11-02T10:00:00Z\",\"event\":\"send\",\"token\":\"abcd\",\"status\":200}"
        var lines: [[UInt8]] = []
        lines.append(Array(good.utf8))
        lines.append(Array("{\"time\":\"2026-11-02T10:00:01Z\",\"event\":\"send\",\"token\":\"ab\u{0}cd\",\"status\":200}".utf8))  // NUL
        lines.append(
            Array(
                ("{\"time\":\"2026-11-02T10:00:02Z\",\"event\":\"send\",\"token\":\"ab\",\"status\":200,\"x\":"
                    + String(repeating: "[", count: 200_000) + String(repeating: "]", count: 200_000) + "}").utf8))
        lines.append(
            Array(
                ("{\"time\":\"2026-11-02T10:00:03Z\",\"event\":\"send\",\"token\":\"ab\",\"status\":200"
                    + String(repeating: ",\"response\":{\"response\":", count: 1) + String(repeating: "{\"response\":", count: 50_000)
                    + String(repeating: "}", count: 50_002) + "}").utf8))
        lines.append(
            Array("{\"time\":\"2026-11-02T10:00:04Z\",\"event\":\"send\",\"token\":\"ab\",\"status\":99999999999999999999999}".utf8))
        lines.append(Array("{\"time\":1e400,\"event\":\"send\",\"token\":\"ab\",\"status\":200}".utf8))
        lines.append(Array("{\"time\":\"0000-01-01T00:00:00Z\",\"event\":\"send\",\"token\":\"ab\",\"status\":200}".utf8))
        lines.append(Array("{\"time\":\"9999-12-31T23:59:59Z\",\"event\":\"send\",\"token\":\"ab\",\"status\":200}".utf8))
        lines.append(Array("{\"time\":\"2026-11-02T10:00:05Z\",\"event\":\"send\",\"token\":\"ab\",\"status\":-5}".utf8))
        let p = tmp.write("hostile.ndjson", bytes: Array(lines.joined(separator: [0x0A])) + [0x0A])
        let s = try ingest([p], db: tmp.file("p.db"))
        XCTAssertFalse(s.failed)
        // The first line and the year-9999 line are records; everything else is a reject with its
        // reason (nesting is skipped without recursion and refused past 10,000 levels).
        XCTAssertEqual(s.totalRecords, 2)
        let r = try Store.openForReading(path: tmp.file("p.db"))
        let q = try r.prepare("SELECT line, reason FROM rejects ORDER BY line")
        var reasons: [Int64: String] = [:]
        while try q.step() { reasons[q.int(0)] = q.string(1) }
        XCTAssertEqual(reasons[2], "NUL byte in line")
        XCTAssertEqual(reasons[3], "JSON nested too deeply")
        XCTAssertEqual(reasons[4], "JSON nested too deeply")
        XCTAssertEqual(reasons[5], "status out of range")
        XCTAssertTrue(reasons[6]?.hasPrefix("bad time") ?? false)
        XCTAssertTrue(reasons[7]?.hasPrefix("bad time") ?? false, "year 0")
        XCTAssertTrue(reasons[9]?.hasPrefix("status out of range") ?? false)
        XCTAssertEqual(reasons.count, 7)
    }

    func testOpenRecordsAtEndOfFileAreRejected() throws {
        let tmp = TempDir()
        let csv = tmp.write("open.csv", "time,event,token,status\n2026-11-02T10:00:00Z,send,ab,200\n2026-11-02T10:00:01Z,send,\"ab,200\n")
        let json = tmp.write(
            "open.json",
            "{\n  \"time\": \"2026-11-02T10:00:00Z\", \"event\": \"send\", \"token\": \"ab\", \"status\": 200\n}\n{\n  \"time\": \"2026-11-02T10:00:01Z\",\n"
        )
        let s = try ingest([csv, json], db: tmp.file("p.db"))
        XCTAssertEqual(s.files.map(\.totalRecords), [1, 1])
        XCTAssertEqual(s.files.map(\.rejects), [1, 1])
        XCTAssertEqual(try count("SELECT count(*) FROM rejects WHERE reason LIKE '%end of the file%'", db: tmp.file("p.db")), 2)
    }

    func testGzipBombIsStopped() throws {
        let zeros = [UInt8](repeating: 0x61, count: 8 << 20)
        let gz = try GzipWriter.compress(zeros, level: 9)
        let tmp = TempDir()
        let p = tmp.write("bomb.gz", bytes: gz)
        let src = try GzipByteSource(input: try FileByteSource(path: p), maxRatio: 100, slack: 1 << 20)
        let reader = LineReader(source: src)
        XCTAssertThrowsError(try reader.forEachLine { _ in }) { e in
            guard case InputError.ratioExceeded = e else { return XCTFail("\(e)") }
        }
    }

    /// Newlines gzipped a thousand to one: blank lines cost nothing, and the stream is stopped
    /// past 200:1 with the reason, the records before kept.
    func testNewlinesGzippedFarBeyondAnyLogAreStoppedQuickly() throws {
        let tmp = TempDir()
        let record = #"{"time":"2026-11-02T10:00:00Z","type":"send","token":"\#(Self.token(1))","status":200}"# + "\n"
        var gz = try GzipWriter.compress(Array(record.utf8))
        let newlines = try GzipWriter.compress([UInt8](repeating: 0x0A, count: 16 << 20), level: 9)
        for _ in 0..<8 { gz += newlines }  // 128 MiB of blank lines from about 130 KB
        let p = tmp.write("newlines.ndjson.gz", bytes: gz)
        let started = Date()
        let r = try Run.pushlog(["--db", tmp.file("p.db"), "ingest", p])
        XCTAssertLessThan(Date().timeIntervalSince(started), 30)
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("decompression ratio above 200:1"), r.stderr)
        XCTAssertEqual(try Store.openForReading(path: tmp.file("p.db"), unfinished: true).scalarInt("SELECT count(*) FROM sends"), 1)
    }

    func testSymlinkLoopsAndBrokenLinks() throws {
        let tmp = TempDir()
        let dir = tmp.path + "/logs"
        try FileManager.default.createDirectory(atPath: dir + "/sub", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixtures.path("canonical.ndjson"), toPath: dir + "/sub/a.ndjson")
        try FileManager.default.createSymbolicLink(atPath: dir + "/sub/loop", withDestinationPath: dir)
        try FileManager.default.createSymbolicLink(atPath: dir + "/broken", withDestinationPath: dir + "/nowhere")
        var problems: [String] = []
        let files = FileWalker.expand([dir], problems: &problems)
        XCTAssertEqual(files.map { ($0.path as NSString).lastPathComponent }, ["a.ndjson"])
        XCTAssertEqual(problems.count, 1)
        XCTAssertTrue(problems[0].contains("broken"))
        let r = try Run.pushlog(["--db", tmp.file("p.db"), "ingest", "--quiet", dir])
        XCTAssertEqual(r.status, 1, "a broken link is reported and fails the run")
        XCTAssertEqual(try count("SELECT count(*) FROM sends", db: tmp.file("p.db")), 3, "the rest is kept (send, request, response)")
    }

    func testFullDiskFailsClearlyAndLeavesAConsistentDatabase() throws {
        guard getuid() == 0 else { throw XCTSkip("needs root to mount a small tmpfs") }
        let tmp = TempDir()
        let logs = try demoCorpus(tmp, devices: 400)
        let mnt = tmp.path + "/small"
        try FileManager.default.createDirectory(atPath: mnt, withIntermediateDirectories: true)
        let m = Process()
        m.executableURL = URL(fileURLWithPath: "/bin/mount")
        m.arguments = ["-t", "tmpfs", "-o", "size=3m", "tmpfs", mnt]
        try m.run()
        m.waitUntilExit()
        guard m.terminationStatus == 0 else { throw XCTSkip("cannot mount tmpfs here") }
        defer {
            let u = Process()
            u.executableURL = URL(fileURLWithPath: "/bin/umount")
            u.arguments = [mnt]
            try? u.run()
            u.waitUntilExit()
        }
        let db = mnt + "/p.db"
        let r = try Run.pushlog(["--db", db, "ingest", "--format", "json", logs])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.lowercased().contains("full") || r.stderr.contains("disk"), r.stderr)
        XCTAssertTrue(r.stderr.contains("writing to \(db) failed"), r.stderr)  // the database is full, not the log
        // The summary counts what was committed, not the batch rolled back.
        let summary = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        let totals = (summary?["totals"] as? [String: Any])?["records"] as? [String: Int] ?? [:]
        let committed = try Store.openForReading(path: db, unfinished: true).scalarInt(
            "SELECT coalesce(sum(n_send + n_request + n_response + n_register + n_settings + n_receipt + n_unregister), 0) FROM sources")
        XCTAssertEqual(Int64(totals.values.reduce(0, +)), committed, r.stdout)
        // Whatever was committed is consistent: rows equal the per-source counters.
        // (Read through `query`'s door: a first load that stopped is refused by reports.)
        if FileManager.default.fileExists(atPath: db) {
            let c = try Store.openForReading(path: db, unfinished: true)
            XCTAssertEqual(try c.scalarInt("SELECT count(*) FROM sends"), try c.scalarInt("SELECT coalesce(sum(n_send), 0) FROM sources"))
            XCTAssertEqual(
                try c.scalarInt("SELECT count(*) FROM sources WHERE complete = 1 AND n_send + n_register + n_settings + n_receipt = 0"), 0)
        }
        // Room again: the next ingest completes the load, with a clean load's records, and leaves
        // no write-ahead log behind.
        let grow = Process()
        grow.executableURL = URL(fileURLWithPath: "/bin/mount")
        grow.arguments = ["-o", "remount,size=64m", mnt]
        try grow.run()
        grow.waitUntilExit()
        XCTAssertEqual(grow.terminationStatus, 0)
        let resumed = try Run.pushlog(["--db", db, "ingest", "--quiet", logs])
        XCTAssertEqual(resumed.status, 0, resumed.stderr)
        let clean = tmp.file("clean.db")
        XCTAssertEqual(try Run.pushlog(["--db", clean, "ingest", "--quiet", logs]).status, 0)
        for table in ["sends", "registers", "settings", "receipts"] {
            XCTAssertEqual(try count("SELECT count(*) FROM \(table)", db: db), try count("SELECT count(*) FROM \(table)", db: clean), table)
        }
        let wal = (try? FileManager.default.attributesOfItem(atPath: db + "-wal")[.size] as? Int) ?? 0
        XCTAssertEqual(wal, 0, "the write-ahead log is merged and emptied after the resumed load")
    }
}
