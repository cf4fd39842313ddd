import Foundation
import XCTest
@testable import PushLogKit

/// `RecordRows` encodes records straight from the parser (export, the ClickHouse ingest): for
/// every fixture log, its rows must be the rows the records give when stored in SQLite by the
/// ingest and dumped (`RecordDump` + `RowEncoder`, the `--from-db` path), byte for byte, in both
/// formats, and its counts those the SQLite ingest stores for the file.
final class RecordRowsTests: XCTestCase {
    /// Every log among the fixtures (one file at a time: a duplicate across files is not one here).
    var logs: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: Fixtures.path(""))) ?? []
        return names.sorted().filter { n in
            ![".bin", ".py", ".md", ".expected"].contains { n.hasSuffix($0) } && n != "migration"
        }.map { Fixtures.path($0) }
    }

    /// The rows `sink` received, written to a file and read back, sorted.
    func rows(_ format: ExportFormat, _ tmp: TempDir, _ name: String, _ fill: (ExportSink) throws -> Void) throws -> [String] {
        let path = tmp.file(name)
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        XCTAssertGreaterThanOrEqual(fd, 0)
        try fill(StreamSink(fd: fd, format: format))
        close(fd)
        return try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init).sorted()
    }

    func testRowsEqualTheStoredRecordsDumped() throws {
        XCTAssertGreaterThan(logs.count, 40)
        var compared = 0
        for log in logs {
            for format in ExportFormat.allCases {
                let tmp = TempDir()
                var opts = IngestOptions()
                opts.recordsOnly = true
                let db = try Store.openForWriting(path: tmp.file("p.db"))
                let stored = try Ingester(db: db, options: opts).run(paths: [log])
                let dumped = try rows(format, tmp, "old") { _ = try RecordDump.run(db, since: nil, until: nil, into: $0) }
                var result: LogExport.Result?
                let direct = try rows(format, tmp, "new") { result = try LogExport().run(paths: [log], since: nil, until: nil, into: $0) }
                XCTAssertEqual(direct, dumped, "\(log) \(format)")
                compared += direct.count
                let a = try XCTUnwrap(stored.files.first), b = try XCTUnwrap(result?.summary.files.first)
                XCTAssertEqual(b.records, a.records, log)
                XCTAssertEqual(
                    [b.duplicates, b.rejects, b.skipped, b.ignored, b.lines, b.metrics],
                    [a.duplicates, a.rejects, a.skipped, a.ignored, a.lines, a.metrics], log)
                XCTAssertEqual(b.complete, a.complete, log)
                XCTAssertEqual(b.error, a.error, log)
                XCTAssertEqual(b.refused, a.refused, log)
                XCTAssertEqual(b.warnings, a.warnings, log)
            }
        }
        XCTAssertGreaterThan(compared, 800)
    }

    /// Identical records within one file beyond the occurrence window are one record in SQLite
    /// (the identity key), so they give one row; each reject counts once.
    func testDuplicatesWithinAFileGiveOneRow() throws {
        let tmp = TempDir()
        let send = #"{"event":"send","ts":"2026-11-02T10:00:00Z","token":"\#(String(repeating: "ab", count: 32))","status":200}"#
        let filler = (0..<OccurrenceCounter.windowLines + 5).map {
            #"{"event":"send","ts":"2026-11-02T10:00:01Z","token":"\#(String(repeating: "cd", count: 32))","apns_id":"f\#($0)","status":200}"#
        }
        let log = tmp.write("far.ndjson", ([send] + filler + [send, "junk"]).joined(separator: "\n") + "\n")
        let db = tmp.file("p.db")
        let stored = try ingest([log], db: db)
        let direct = try rows(.jsonEachRow, tmp, "new") { _ = try LogExport().run(paths: [log], since: nil, until: nil, into: $0) }
        XCTAssertEqual(stored.files[0].duplicates, 1)
        XCTAssertEqual(direct.count, Int(try count("SELECT count(*) FROM sends", db: db)))
        XCTAssertEqual(direct.filter { $0.contains("abababab") }.count, 1)
    }
}
