import Foundation

/// `pushlog --clickhouse URL ingest PATH...`: each file is read exactly as `ingest` reads it
/// (formats, detection, gzip, identity, rejects) and its records go straight from the parser into
/// RowBinary batches (`RecordRows`: the rows `export` writes, in the binary form the server reads
/// fastest, counted as the SQLite ingest counts them), sent on a thread of their own while the
/// next batch is parsed and encoded.
///
/// Exactly once, under a kill at any moment: a file's batches are cut the same way every time
/// (its records in file order, `batchRows` each), and batch K is inserted with the
/// `insert_deduplication_token` FINGERPRINT:K, so a batch sent again (the run died before its
/// progress row was written) is dropped by the server. After each batch the file's row in
/// `sources` records how many are in; a re-run reads the file again and sends only the batches
/// after them, and skips a file whose fingerprint matches a complete row without reading it. The
/// records table also collapses a record seen twice (its key holds the record identity), which
/// covers a file that grew and is sent again under its new fingerprint.
public struct ClickHouseIngest {
    public let client: ClickHouseClient
    public var options = IngestOptions()
    /// Records per insert: one block on the server (below max_insert_block_size).
    public var batchRows = 100_000
    /// Rejected lines per insert into `rejects` (cut the same way every time too).
    static let rejectBatch = 10_000

    public init(client: ClickHouseClient) { self.client = client }

    /// The files' summary as `ingest` prints it (records are those read from each file).
    public func run(paths: [String]) throws -> IngestSummary {
        let started = Date()
        try createSchema()
        var summary = IngestSummary()
        var problems: [String] = []
        let files = SourcePaths.unique(FileWalker.expand(paths, problems: &problems))
        summary.problems = problems
        let inserts = InsertQueue()
        defer { inserts.close() }
        let pool = ChunkPool(limit: 6)
        for f in files {
            guard !f.isStdin else {
                summary.problems.append("-: stdin cannot be resumed; ClickHouse ingest reads files (save it to a file first)")
                continue
            }
            summary.files.append(try file(InputFile(path: SourcePaths.canonical(f.path), named: f.named), inserts, pool))
        }
        try inserts.wait()
        pool.drain()
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

    /// One file: skipped when unchanged, else read whole and its missing batches queued.
    func file(_ f: InputFile, _ inserts: InsertQueue, _ pool: ChunkPool) throws -> FileSummary {
        let started = Date()
        var fs = FileSummary(path: f.path)
        defer { fs.seconds = Date().timeIntervalSince(started) }
        let path = f.path
        let fingerprint = try ClickHouseIngest.fingerprint(path)
        let known = try client.table(
            "source", sql: "SELECT fingerprint, batches_done, complete FROM \(db).sources FINAL WHERE path = {path:String}",
            params: ["path": path])
        var done = 0
        if let row = known.rows.first, case .text(let fp) = row[0], fp == fingerprint {
            if case .int(1) = row[2] {
                fs.unchanged = true
                return fs
            }
            if case .int(let n) = row[1] { done = Int(n) }
        }
        let opened: OpenedStream
        switch try OpenedStream.open(f, offset: 0, lines: 0, Ingester.fileInfo(path), options: options, &fs) {
        case .refused(let why):
            // Not stored: a refused file is looked at again by the next run (its head only).
            fs.refused = Redactor.redact(why)
            fs.format = Ingester.refusedFormat
            return fs
        case .opened(let o): opened = o
        }
        let rows = RecordRows(encoding: .rowBinary)
        rows.start(path: path)
        var batch: [UInt8] = []
        var inBatch = 0, sent = 0, batches = 0, rejectBatches = 0
        let client = self.client, db = self.db
        let format = fs.format
        func sendBatch() throws {
            let k = batches
            batches += 1
            sent += inBatch
            defer {
                batch.removeAll(keepingCapacity: true)
                inBatch = 0
            }
            guard k >= done else { return }  // inserted by an earlier run
            let data = Data(batch), row = ClickHouseIngest.sourceRow(path, fingerprint, format, rows, nil)
            let through = sent
            try inserts.add {
                _ = try client.execute(
                    "INSERT INTO \(db).records (\(RecordDump.columns.joined(separator: ", "))) FORMAT RowBinary",
                    settings: ["insert_deduplication_token": "\(fingerprint):\(k)"],
                    data: data)
                try ClickHouseIngest.progress(client, db, row, batches: k + 1, rows: through, complete: false)
            }
        }
        func sendRejects(all: Bool) throws {
            while rows.rejects.count >= ClickHouseIngest.rejectBatch || all && !rows.rejects.isEmpty {
                let cut = min(rows.rejects.count, ClickHouseIngest.rejectBatch)
                let data = ClickHouseIngest.rejectRows(path, rows.rejects[..<cut])
                rows.rejects.removeFirst(cut)
                let token = "\(fingerprint):rejects:\(rejectBatches)"
                rejectBatches += 1
                try inserts.add {
                    _ = try client.execute(
                        "INSERT INTO \(db).rejects FORMAT JSONEachRow", settings: ["insert_deduplication_token": token], data: data)
                }
            }
        }
        let (bytes, readError) = try ParsedFile.read(opened, pool: pool) { chunk in
            try chunk.items.withUnsafeBufferPointer { items in
                for i in items.indices where rows.take(items[i], into: &batch) {
                    inBatch += 1
                    if inBatch == batchRows { try sendBatch() }
                }
            }
            try sendRejects(all: false)
        }
        if inBatch > 0 { try sendBatch() }
        try sendRejects(all: true)
        rows.summarize(into: &fs)
        fs.bytes = bytes
        if let readError {
            fs.complete = false
            fs.error = "\(readError)"
        }
        let row = ClickHouseIngest.sourceRow(path, fingerprint, format, rows, fs.error)
        let (total, count, complete) = (sent, batches, fs.complete)
        try inserts.add { try ClickHouseIngest.progress(client, db, row, batches: count, rows: total, complete: complete) }
        return fs
    }

    /// What `sources` keeps of a file read so far, as the SQLite ingest counts it into its row
    /// (values as text, for query parameters).
    static func sourceRow(_ path: String, _ fingerprint: String, _ format: String, _ rows: RecordRows, _ error: String?) -> [String: String]
    {
        let c = rows.counts
        var row = ["path": path, "fingerprint": fingerprint, "format": format]
        for k in EventKind.allCases { row["n_" + k.name] = "\(c.records[k])" }
        row["duplicates"] = "\(c.duplicates)"
        row["rejects"] = "\(c.rejects)"
        row["skipped"] = "\(c.skipped)"
        row["ignored"] = "\(c.ignored)"
        row["lines"] = "\(rows.lastLine)"
        row["error"] = error ?? "\\N"
        row["first_time_ms"] = c.minT.map { "\($0)" } ?? "\\N"
        row["last_time_ms"] = c.maxT.map { "\($0)" } ?? "\\N"
        return row
    }

    /// Rejected lines as JSONEachRow rows of the `rejects` table.
    static func rejectRows(_ path: String, _ rejects: ArraySlice<RecordRows.Reject>) -> Data {
        var out: [UInt8] = []
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let source = json(path)
        for r in rejects {
            out += Array("{\"source\":".utf8) + source + Array(",\"line\":\(r.line),\"reason\":".utf8)
            out += json(r.reason) + Array(",\"text\":".utf8) + json(r.text)
            out += Array(",\"line_hash\":\"\(hex(UInt64(bitPattern: r.lineHash)))\",\"time_ms\":\(now)}\n".utf8)
        }
        return Data(out)
    }

    /// The file's row in `sources`: written after each batch and at the end.
    static func progress(_ client: ClickHouseClient, _ db: String, _ stats: [String: String], batches: Int, rows: Int, complete: Bool)
        throws
    {
        let now = Date().timeIntervalSince1970
        var row = stats
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

/// The inserts of an ingest, run in order on a thread of their own: the next batch is parsed
/// and encoded while one is in flight. At most one job waits besides the one running (memory:
/// three batches). After a job fails, the rest are dropped and the failure is thrown to the
/// caller, so a progress row is never written for a batch that did not arrive.
final class InsertQueue: @unchecked Sendable {
    private let cond = NSCondition()
    private var jobs: [@Sendable () throws -> Void] = []
    private var busy = false
    private var closed = false
    private var failure: Error?

    init() {
        let thread = Thread { [self] in work() }
        thread.start()
    }

    /// Queues a job; blocks while another one waits. Throws the failure of an earlier job.
    func add(_ job: @escaping @Sendable () throws -> Void) throws {
        cond.lock()
        defer { cond.unlock() }
        while !jobs.isEmpty && failure == nil { cond.wait() }
        if let failure { throw failure }
        jobs.append(job)
        cond.broadcast()
    }

    /// Waits until every queued job ran; throws the first failure.
    func wait() throws {
        cond.lock()
        defer { cond.unlock() }
        while (!jobs.isEmpty || busy) && failure == nil { cond.wait() }
        if let failure { throw failure }
    }

    /// Ends the thread once the queue is empty.
    func close() {
        cond.lock()
        closed = true
        cond.broadcast()
        cond.unlock()
    }

    private func work() {
        cond.lock()
        while true {
            while jobs.isEmpty && !closed { cond.wait() }
            if jobs.isEmpty { break }
            let job = jobs.removeFirst()
            busy = true
            cond.unlock()
            var error: Error?
            do { try job() } catch let e { error = e }
            cond.lock()
            busy = false
            if let error, failure == nil {
                failure = error
                jobs.removeAll()
            }
            cond.broadcast()
        }
        cond.unlock()
    }
}
