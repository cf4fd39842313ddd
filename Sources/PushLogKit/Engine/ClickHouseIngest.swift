import Foundation

/// `pushlog --clickhouse URL ingest PATH...`: each file is read exactly as `ingest` reads it
/// (formats, detection, gzip, identity, rejects), into a private scratch SQLite file that holds
/// only that file's records, and sent to ClickHouse in batches of TSVWithNames.
///
/// Exactly once, under a kill at any moment: a file's batches are cut the same way every time
/// (its records in identity order, `batchRows` each), and batch K is inserted with the
/// `insert_deduplication_token` FINGERPRINT:K, so a batch sent again (the run died before its
/// progress row was written) is dropped by the server. After each batch the file's row in
/// `sources` records how many are in; a re-run resumes after them, and skips a file whose
/// fingerprint matches a complete row without reading it. The records table also collapses
/// a record seen twice (its key holds the record identity), which covers a file that grew and
/// is sent again under its new fingerprint.
public struct ClickHouseIngest {
    public let client: ClickHouseClient
    public var options = IngestOptions()
    /// Records per insert: one block on the server (below max_insert_block_size).
    public var batchRows = 100_000

    public init(client: ClickHouseClient) { self.client = client }

    /// The files' summary as `ingest` prints it (records are those read from each file).
    public func run(paths: [String]) throws -> IngestSummary {
        let started = Date()
        try createSchema()
        var summary = IngestSummary()
        var problems: [String] = []
        let files = SourcePaths.unique(FileWalker.expand(paths, problems: &problems))
        summary.problems = problems
        for f in files {
            guard !f.isStdin else {
                summary.problems.append("-: stdin cannot be resumed; ClickHouse ingest reads files (save it to a file first)")
                continue
            }
            summary.files.append(try file(SourcePaths.canonical(f.path)))
        }
        // The facts reports read, rebuilt from the records as they now are (and after a killed
        // run, by the next one even when it has nothing left to send).
        try ClickHouseFacts.ensure(client)
        summary.seconds = Date().timeIntervalSince(started)
        return summary
    }

    /// Creates the database, tables, views and functions the reports read (idempotent).
    public func createSchema() throws {
        for statement in ClickHouseQueries.schemaStatements(database: client.url.database) {
            _ = try client.execute(statement, inDatabase: false)
        }
    }

    var db: String { "`\(client.url.database)`" }

    /// One file: skipped when unchanged, else read whole and its missing batches sent.
    func file(_ path: String) throws -> FileSummary {
        let fingerprint = try ClickHouseIngest.fingerprint(path)
        let known = try client.table(
            "source", sql: "SELECT fingerprint, batches_done, complete FROM \(db).sources FINAL WHERE path = {path:String}",
            params: ["path": path])
        var done = 0
        if let row = known.rows.first, case .text(let fp) = row[0], fp == fingerprint {
            if case .int(1) = row[2] {
                var s = FileSummary(path: path)
                s.unchanged = true
                return s
            }
            if case .int(let n) = row[1] { done = Int(n) }
        }
        let scratch = FileManager.default.temporaryDirectory.path + "/pushlog-clickhouse-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let local = try Store.openForWriting(path: scratch + "/records.db")
        try local.exec("PRAGMA synchronous = OFF")  // scratch: nothing of it must survive a crash
        var opts = options
        opts.recordsOnly = true
        opts.progress = nil
        let read = try Ingester(db: local, options: opts).run(paths: [path])
        if try ClusteredTable.staged(local) {
            try local.exec("BEGIN IMMEDIATE")
            try ClusteredTable.moveStaged(local)
            try local.exec("COMMIT")
        }
        let summary = read.files.first ?? FileSummary(path: path)
        if summary.refused != nil { return summary }
        let stats = try ClickHouseIngest.stats(local)
        let sink = BatchSink(batchRows: batchRows) { batch, rows, k in
            guard k >= done else { return }  // inserted by an earlier run
            _ = try client.execute(
                "INSERT INTO \(db).records FORMAT TSVWithNames", settings: ["insert_deduplication_token": "\(fingerprint):\(k)"],
                data: Data(batch))
            try progress(path, fingerprint, stats, batches: k + 1, rows: rows, complete: false)
        }
        let rows = try RecordDump.run(local, since: nil, until: nil, ordered: true, into: sink)
        try rejects(local, path: path, fingerprint: fingerprint)
        try progress(path, fingerprint, stats, batches: sink.batches, rows: rows, complete: summary.complete)
        return summary
    }

    /// What `sources` keeps of a file, as the scratch database counted it (values as text).
    static func stats(_ local: Database) throws -> [String: String] {
        let columns = [
            "format", "n_send", "n_request", "n_response", "n_register", "n_settings", "n_receipt", "n_unregister", "duplicates",
            "rejects", "skipped", "ignored", "lines", "error", "first_time_ms", "last_time_ms",
        ]
        let s = try local.prepare("SELECT \(columns.joined(separator: ", ")) FROM sources")
        var out: [String: String] = [:]
        guard try s.step() else { return out }
        for (i, c) in columns.enumerated() {
            out[c] = s.isNull(Int32(i)) ? (c == "format" ? "" : "\\N") : (s.string(Int32(i)) ?? "")
        }
        return out
    }

    /// The file's rejected lines, one insert (deduplicated by the file's token).
    func rejects(_ local: Database, path: String, fingerprint: String) throws {
        let s = try local.prepare("SELECT line, reason, text, line_hash FROM rejects ORDER BY line, line_hash")
        var out: [UInt8] = []
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        while try s.step() {
            out += Array("{\"source\":".utf8) + ClickHouseIngest.json(path) + Array(",\"line\":\(s.int(0)),\"reason\":".utf8)
            out += ClickHouseIngest.json(s.string(1) ?? "") + Array(",\"text\":".utf8) + ClickHouseIngest.json(s.string(2) ?? "")
            out += Array(",\"line_hash\":\"\(ClickHouseIngest.hex(UInt64(bitPattern: s.int(3))))\",\"time_ms\":\(now)}\n".utf8)
        }
        guard !out.isEmpty else { return }
        _ = try client.execute(
            "INSERT INTO \(db).rejects FORMAT JSONEachRow", settings: ["insert_deduplication_token": "\(fingerprint):rejects"],
            data: Data(out))
    }

    /// The file's row in `sources`: written after each batch and at the end.
    func progress(_ path: String, _ fingerprint: String, _ stats: [String: String], batches: Int, rows: Int, complete: Bool) throws {
        let now = Date().timeIntervalSince1970
        var row = stats
        row["path"] = path
        row["fingerprint"] = fingerprint
        row["batches_done"] = "\(batches)"
        row["rows_done"] = "\(rows)"
        row["complete"] = complete ? "1" : "0"
        row["ingested_ms"] = "\(Int64(now * 1000))"
        row["version"] = "\(UInt64(now * 1_000_000))"
        let names = row.keys.sorted()
        let values = names.map { name -> String in
            switch name {
            case "path", "fingerprint", "format": return "{\(name):String}"
            case "error": return "{\(name):Nullable(String)}"
            case "ingested_ms", "first_time_ms", "last_time_ms": return "{\(name):Nullable(Int64)}"
            default: return "{\(name):UInt64}"
            }
        }
        _ = try client.execute(
            "INSERT INTO \(db).sources (\(names.joined(separator: ", "))) SELECT \(values.joined(separator: ", "))", params: row)
    }

    /// Size and a hash of the first 64 KiB: a file that grew or was replaced reads differently.
    static func fingerprint(_ path: String) throws -> String {
        guard let h = FileHandle(forReadingAtPath: path) else { throw IngestError.cannotStat(file: path) }
        defer { try? h.close() }
        let head = h.readData(ofLength: 65_536)
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64) ?? Int64(head.count)
        let (a, b) = head.withUnsafeBytes { LineHash.hash($0.bindMemory(to: UInt8.self)) }
        return "\(hex(UInt64(bitPattern: a)))\(hex(UInt64(bitPattern: b))):\(size)"
    }

    static func hex(_ v: UInt64) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }

    /// A JSON string literal.
    static func json(_ s: String) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "\"")]
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""): out += [92, 34]
            case 92: out += [92, 92]
            case 0..<32: out += Array(String(format: "\\u%04x", b).utf8)
            default: out.append(b)
            }
        }
        out.append(UInt8(ascii: "\""))
        return out
    }

    /// The `sources` listing, with the columns `pushlog sources` shows on SQLite.
    public static func sources(_ client: ClickHouseClient) throws -> ResultTable {
        try client.table(
            "sources",
            sql: """
                SELECT path, format, fingerprint,
                       n_send + n_request + n_response + n_register + n_settings + n_receipt + n_unregister AS records,
                       n_send AS send, n_request AS request, n_response AS response, n_register AS register,
                       n_settings AS settings, n_receipt AS receipt, n_unregister AS unregister,
                       duplicates, rejects, skipped, ignored, lines, if(complete = 1, 'yes', 'no') AS complete, error,
                       pushlog_rfc3339(ingested_ms) AS ingested_at
                FROM `\(client.url.database)`.sources FINAL ORDER BY path
                """)
    }
}

/// Rows of a RecordDump in batches of TSVWithNames (each with its header; the server parses TSV
/// faster than JSON): `send(bytes, rows so far, batch number)` for each full batch and the last one.
final class BatchSink: ExportSink {
    let encoder = RowEncoder(format: .tsvWithNames)
    let batchRows: Int
    let send: ([UInt8], Int, Int) throws -> Void
    var buffer: [UInt8] = []
    var inBatch = 0
    var rows = 0
    var batches = 0

    init(batchRows: Int, send: @escaping ([UInt8], Int, Int) throws -> Void) {
        self.batchRows = batchRows
        self.send = send
    }

    func write(_ row: Statement) throws {
        if inBatch == 0 { buffer += ExportFormat.tsvWithNames.header() }
        encoder.append(row, to: &buffer)
        inBatch += 1
        rows += 1
        if inBatch == batchRows { try flush() }
    }

    func finish() throws { if inBatch > 0 { try flush() } }

    func flush() throws {
        try send(buffer, rows, batches)
        batches += 1
        buffer.removeAll(keepingCapacity: true)
        inBatch = 0
    }
}
