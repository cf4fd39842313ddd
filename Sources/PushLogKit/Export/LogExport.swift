import Foundation

/// `export PATH...`: the inputs are read exactly as `ingest` reads them (formats, detection, gzip,
/// identity, rejects) into a temporary database holding only the records (no indexes, no derived
/// facts), which is dumped with `RecordDump` and deleted. Duplicate lines within the inputs are
/// dropped as ingest drops them; split responses are exported as logged (ClickHouse joins them).
public struct LogExport {
    public var options = IngestOptions()
    public init() {}

    /// The ingest summary, the rows written and the rejected lines (path, line, reason).
    public struct Result {
        public var summary: IngestSummary
        public var rows: Int
        public var rejects: [(path: String, line: Int64, reason: String)]
        public var rejectCount: Int
    }

    /// Rejected lines listed in the result at most (the count covers them all).
    static let listedRejects = 20

    public func run(paths: [String], since: Int64?, until: Int64?, into sink: ExportSink) throws -> Result {
        let dir = FileManager.default.temporaryDirectory.path + "/pushlog-export-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(
            atPath: dir, withIntermediateDirectories: false,
            attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let db = try Store.openForWriting(path: dir + "/records.db")
        // Nothing of the temporary database must survive a crash, so no durability is paid for.
        try db.exec("PRAGMA synchronous = OFF")
        var opts = options
        opts.recordsOnly = true
        let summary = try Ingester(db: db, options: opts).run(paths: paths)
        // A load stopped by the database (a full disk) skips finalizing: its staged registrations
        // and receipts are moved here, or the export fails rather than leave them out.
        if try ClusteredTable.staged(db) {
            try db.exec("BEGIN IMMEDIATE")
            try ClusteredTable.moveStaged(db)
            try db.exec("COMMIT")
        }
        let rows = try RecordDump.run(db, since: since, until: until, ordered: sink is DayPartitionSink, into: sink)
        var rejects: [(String, Int64, String)] = []
        let r = try db.prepare(
            "SELECT s.path, j.line, j.reason FROM rejects j JOIN sources s ON s.id = j.source_id ORDER BY j.source_id, j.line LIMIT \(LogExport.listedRejects)"
        )
        while try r.step() { rejects.append((r.string(0) ?? "", r.int(1), r.string(2) ?? "")) }
        let count = Int(try db.scalarInt("SELECT count(*) FROM rejects") ?? 0)
        return Result(summary: summary, rows: rows, rejects: rejects, rejectCount: count)
    }
}
