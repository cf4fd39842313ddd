import Foundation

/// `pushlog --clickhouse URL ingest PATH...`: each file is read exactly as `ingest` reads it
/// (formats, detection, gzip, identity, rejects) and its records go straight from the parser into
/// batches (`RecordRows`: the rows `export` writes, in binary, counted as the SQLite ingest counts
/// them), each turned into a Native block (whole columns, the form the server reads fastest) and
/// sent on a thread of its own while the next batch is parsed and encoded.
///
/// Exactly once, under a kill at any moment: a read of a file (from its start, or on from where
/// a complete read ended when the file grew) cuts its records into batches the same way every
/// time (file order, `batchRows` each), and a batch is inserted with the
/// `insert_deduplication_token` READ:FIRST_ROW:ROWS, so a batch sent again (the run died before
/// its progress row was written) is dropped by the server. After each full batch the file's row
/// in `sources` records how many rows are in; a re-run does the same read and sends the rows
/// after them, and skips a file whose fingerprint matches a complete row without reading it. The
/// rows after a read's last full batch go into a block shared with other files' (`SharedBlock`,
/// announced before it is sent and settled first by a re-run).
///
/// A record the database already stores (a renamed or re-compressed copy of a file) is taken out
/// of its batch before it is sent, by a lookup of `record_keys`, and counted as a duplicate, as
/// the SQLite store counts it: a copy adds no row and no fact, and `trace` names the original.
public final class ClickHouseIngest: IngestTarget {
    public let client: ClickHouseClient
    public var options = IngestOptions()
    /// Records per insert: one block on the server (below max_insert_block_size).
    public var batchRows = 100_000
    /// Called before the kept facts are brought up to date at the end, with the notice that says how.
    public var rebuilding: (String) -> Void = { _ in }
    /// Rejected lines per insert into `rejects` (cut the same way every time too).
    static let rejectBatch = 10_000
    /// This run's blocks the server has not confirmed yet (what a lookup of stored records waits for).
    let unconfirmed = UnconfirmedBlocks()
    /// What the stored records span, and the blocks sent since (what needs no lookup).
    let storedSpans = StoredSpans()
    /// Every file's record times, for the rotation sets' `Lineage`.
    let sourceSpans = SourceSpans()
    /// Under `--follow`: the kept facts are brought up to date when the follow ends, not per round.
    var following = false
    /// The schema made and the blocks a killed run left settled (once per process).
    private var prepared = false
    private let pool = ChunkPool(limit: 6)
    private let inserts = InsertQueue()
    private let shared = SharedBlock()

    public init(client: ClickHouseClient) { self.client = client }

    deinit { inserts.close() }

    /// The files' summary as `ingest` prints it (records are those read from each file).
    public func run(paths: [String]) throws -> IngestSummary {
        var problems: [String] = [], notes: [String] = []
        let files = FileWalker.expand(paths, problems: &problems, notes: &notes)
        var summary = try run(files: files, problems: problems)
        summary.notes = notes
        return summary
    }

    /// One run over files already expanded: a rotated set oldest first, as on SQLite; the last
    /// blocks waited for; the kept facts brought up to date (not per round of a follow).
    func run(files expanded: [InputFile], problems: [String]) throws -> IngestSummary {
        let started = Date()
        if !prepared {
            try createSchema()
            try loadStoredSpans()
            try loadSourceSpans()
            try settleSharedBlocks(pool)
            prepared = true
        }
        var summary = IngestSummary()
        summary.problems = problems
        let files = RotationName.oldestFirst(SourcePaths.unique(expanded))
        var read: [InputFile] = []
        for f in files {
            guard !f.isStream else {
                let what = f.isStdin ? "-: stdin" : "\(f.path): a stream (\(FileWalker.kind(f.path) ?? "not a regular file"))"
                summary.problems.append("\(what) cannot be resumed; ClickHouse ingest reads files (save it to a file first)")
                continue
            }
            read.append(f)
        }
        let known = try sourceStates(paths: read.map(\.path))
        let refusedBefore = try refusals(paths: read.map(\.path))
        let totalBytes = read.reduce(Int64(0)) { $0 + (Ingester.fileInfo($1.path)?.size ?? 0) }
        var ticker = ProgressTicker(total: read.count, bytesTotal: totalBytes, callback: options.progress, started: started)
        for f in read {
            let fs = try file(f, known[f.path], refusedBefore: refusedBefore[f.path], inserts, pool, shared, &ticker)
            ticker.filesDone += 1
            // A file named on the command line that is not a log is an error, as on SQLite; one
            // met while walking a folder is skipped with a line saying why.
            if let why = fs.refused, f.named { summary.problems.append("\(f.path): \(why)") }
            summary.files.append(fs)
            if let signal = options.stop?.signalNumber {
                summary.interruptedBy = signal
                summary.problems.append(
                    "stopped at \(f.path): interrupted by \(InputError.name(signal)); the records read are sent, "
                        + "and the next ingest resumes from there")
                break
            }
        }
        let options = self.options
        func phase(_ what: String) {
            options.progress?(
                IngestProgress(
                    filesDone: read.count, filesTotal: read.count, records: summary.lines, bytesIn: totalBytes,
                    bytesTotal: totalBytes, seconds: Date().timeIntervalSince(started), phase: what))
        }
        phase("waiting for the server to take the last blocks")
        try send(shared, inserts)
        try inserts.wait()
        unconfirmed.clear()
        pool.drain()
        // After a run (and after a killed run, by the next one even when it has nothing left to
        // send); not after a signal, which asked to end now.
        if summary.interruptedBy == nil && !following {
            try keptFactsAfterLoad { notice in
                phase(notice)
                self.rebuilding(notice)
            }
        }
        summary.seconds = Date().timeIntervalSince(started)
        return summary
    }

    func followEnded(added: Bool) throws {
        if added { try keptFactsAfterLoad(rebuilding) }
    }

    /// The one place the ingest brings ClickHouse's kept facts up to date (the facts reports
    /// read, rebuilt from the records as they now are).
    private func keptFactsAfterLoad(_ notice: @escaping (String) -> Void) throws {
        _ = try ClickHouseFacts.ensure(client, rebuilding: notice)
    }

    /// A followed file renamed away: its `sources` row, copied under the new name (unless one
    /// is there), so its read goes on where it was; the file now at the old name no longer
    /// matches the old row's first bytes and is read from its start.
    func moveSource(from path: String, to moved: String) throws {
        if try !sourceStates(paths: [moved]).isEmpty { return }
        let columns = try sourceColumns()
        let version = ClickHouseIngest.versions.next(UInt64(Date().timeIntervalSince1970 * 1_000_000))
        let replaced: [String: String] = ["path": "{moved:String}", "version": "greatest(version + 1, {version:UInt64})"]
        _ = try client.execute(
            """
            INSERT INTO \(db).sources (\(columns.map { "`\($0)`" }.joined(separator: ", ")))
            SELECT \(columns.map { replaced[$0] ?? "`\($0)`" }.joined(separator: ", "))
            FROM (SELECT * FROM \(db).sources FINAL WHERE path = {path:String})
            """,
            params: [
                "path": ClickHouseClient.parameter(path), "moved": ClickHouseClient.parameter(moved), "version": "\(version)",
            ])
    }

    /// The columns of `sources`, in order.
    func sourceColumns() throws -> [String] {
        try client.table(
            "columns", sql: "SELECT name FROM system.columns WHERE database = {db:String} AND table = 'sources' ORDER BY position",
            params: ["db": ClickHouseClient.parameter(client.url.database)]
        ).rows.compactMap { if case .text(let name) = $0.first { name } else { nil } }
    }

    /// Creates the database, tables, views and functions the reports read (idempotent). A server
    /// too old to know one of the schema's newer table settings gets the table without it.
    public func createSchema() throws {
        for statement in ClickHouseQueries.schemaStatements(database: client.url.database) {
            do {
                _ = try client.execute(statement, inDatabase: false)
            } catch let e as ClickHouseError where e.code == ClickHouseQueries.unknownSetting {
                let older = ClickHouseQueries.withoutNewerSettings(statement)
                if older == statement { throw e }
                _ = try client.execute(older, inDatabase: false)
            }
        }
        // A database loaded before `record_keys` existed: its records' identities, once.
        let counts = try client.table(
            "keys", sql: "SELECT (SELECT count() FROM \(db).record_keys), (SELECT count() FROM \(db).records)")
        if case .int(0) = counts.rows.first?[0], case .int(let n) = counts.rows.first?[1], n > 0 {
            _ = try client.execute("INSERT INTO \(db).record_keys SELECT time_ms, line_hash, kind, source, line FROM \(db).records")
        }
    }

    var db: String { "`\(client.url.database)`" }

    /// What `sources` holds of a file: how far it was read and sent.
    struct SourceState {
        var path = ""
        var fingerprint = ""
        var complete = false
        var readOffset: Int64 = 0
        var lines = 0
        var headLength = 0
        var headHash = ""
        var segmentOffset: Int64 = 0
        var segmentLines = 0
        var segmentBase = ""
        var segment = ""
        var rowsDone = 0
        var pendingRows = 0
        /// The shared block its last rows went in, announced and not yet settled.
        var pendingBlock = ""
        /// The counts of the row (`n_send`, ..., `first_time_ms`), as text.
        var counts: [String: String] = [:]
        /// The runs of repeats open where the last read ended, and where the read in progress started.
        var openRuns = ""
        var segmentRuns = ""
        /// The version of the file's first row (the listings' order).
        var firstVersion: UInt64 = 0

        static let countColumns =
            EventKind.allCases.map { "n_" + $0.name }
            + ["duplicates", "rejects", "skipped", "ignored", "first_time_ms", "last_time_ms", "ambiguous"]

        /// Whether `path` is still the file this row describes, maybe grown: not smaller than it
        /// was, and the same first bytes (the SQLite ingest's rule).
        func isSameFile(_ path: String, size: Int64?) -> Bool {
            let was = fingerprint.split(separator: ":").last.flatMap { Int64($0) } ?? Int64.max
            return headLength > 0 && (size ?? 0) >= was && Ingester.headHash(path, length: headLength) == headHash
        }
    }

    /// The `sources` rows of `paths`, by path.
    func sourceStates(paths: [String]) throws -> [String: SourceState] {
        var states: [String: SourceState] = [:]
        try inParts(paths) { list in
            for s in try sourceStates(where: "path IN {paths:Array(String)}", params: ["paths": list]) { states[s.path] = s }
        }
        return states
    }

    /// Why an ingest refused a file whole, and the fingerprint it had then.
    struct Refusal: Equatable {
        let fingerprint: String
        let reason: String
    }

    /// The last refusal of each of `paths` that has one (the `refused` table), by path.
    func refusals(paths: [String]) throws -> [String: Refusal] {
        var out: [String: Refusal] = [:]
        try inParts(paths) { list in
            let t = try client.table(
                "refused", sql: "SELECT path, fingerprint, reason FROM \(db).refused FINAL WHERE path IN {paths:Array(String)}",
                params: ["paths": list])
            for row in t.rows {
                guard case .text(let path) = row[0], case .text(let f) = row[1], case .text(let r) = row[2] else { continue }
                out[path] = Refusal(fingerprint: f, reason: r)
            }
        }
        return out
    }

    /// `paths` as query parameter lists of about 8 KB each, as the list goes in the URL (a
    /// server takes 1 MiB, a proxy or a test front less).
    private func inParts(_ paths: [String], _ ask: (String) throws -> Void) throws {
        var part: [String] = []
        var size = 0
        for path in paths {
            if !part.isEmpty && size + path.utf8.count > 8_000 {
                try ask(ClickHouseStatements.array(part))
                part = []
                size = 0
            }
            part.append(path)
            size += path.utf8.count
        }
        if !part.isEmpty { try ask(ClickHouseStatements.array(part)) }
    }

    /// The `sources` rows that meet `condition`.
    func sourceStates(where condition: String, params: [String: String] = [:]) throws -> [SourceState] {
        let cols =
            ["path", "fingerprint", "complete", "read_offset", "lines", "head_len", "head_hash", "segment_offset", "segment_lines"]
            + ["segment_base", "segment", "rows_done", "pending_rows", "pending_block"]
            + SourceState.countColumns + ["open_runs", "segment_runs", "if(first_version = 0, version, first_version)"]
        let t = try client.table(
            "source", sql: "SELECT \(cols.joined(separator: ", ")) FROM \(db).sources FINAL WHERE \(condition)", params: params)
        return t.rows.map { row in
            func text(_ i: Int) -> String { if case .text(let s) = row[i] { return s } else { return "" } }
            func int(_ i: Int) -> Int64 { if case .int(let n) = row[i] { return n } else { return 0 } }
            var s = SourceState(
                path: text(0), fingerprint: text(1), complete: int(2) == 1, readOffset: int(3), lines: Int(int(4)),
                headLength: Int(int(5)), headHash: text(6), segmentOffset: int(7), segmentLines: Int(int(8)), segmentBase: text(9),
                segment: text(10), rowsDone: Int(int(11)), pendingRows: Int(int(12)), pendingBlock: text(13))
            for (i, c) in SourceState.countColumns.enumerated() {
                if case .int(let n) = row[14 + i] { s.counts[c] = "\(n)" } else { s.counts[c] = "\\N" }
            }
            s.openRuns = text(14 + SourceState.countColumns.count)
            s.segmentRuns = text(15 + SourceState.countColumns.count)
            if case .int(let first) = row[16 + SourceState.countColumns.count] { s.firstVersion = UInt64(first) }
            return s
        }
    }

    /// One file: skipped when unchanged; else read from where an earlier run stopped (a file
    /// that grew since a complete read, with the same first bytes: from its end then; a run killed
    /// half-way with the file unchanged: from where that run started, sending only its missing
    /// batches) or from the start, and its batches queued; the rows after its last full batch
    /// join `shared`, which sends the file's final row after them.
    func file(
        _ f: InputFile, _ known: SourceState?, refusedBefore: Refusal?, _ inserts: InsertQueue, _ pool: ChunkPool,
        _ shared: SharedBlock, _ ticker: inout ProgressTicker
    ) throws -> FileSummary {
        let started = Date()
        var fs = FileSummary(path: f.path)
        defer { fs.seconds = Date().timeIntervalSince(started) }
        let path = f.path
        let fingerprint = try ClickHouseIngest.fingerprint(path)
        let st = Ingester.fileInfo(path)
        var start = (offset: Int64(0), lines: 0)
        var base = ""
        var skip = 0
        var pending = 0
        var resumed: String?
        var runs = ""
        // The path held other bytes before: records stored from it are another file's.
        var replaced = false
        // Listed where the file was first read: kept from its row, or this read's start.
        if let known {
            if known.fingerprint == fingerprint && known.complete {
                fs.unchanged = true
                return fs
            }
            let same = known.isSameFile(path, size: st?.size)
            replaced = !same
            if same && !known.complete && known.segment != "" {
                // A run stopped half-way: the same read again, from the same start, the same
                // batches (named by their first row), the rows it got in skipped.
                start = (known.segmentOffset, known.segmentLines)
                base = known.segmentBase
                skip = known.rowsDone
                // Rows announced alone, by an earlier version that sent a read's last rows as a
                // batch of their own: cut the same batch again.
                pending = known.pendingBlock == "" ? known.pendingRows : 0
                resumed = known.segment
                runs = known.segmentRuns
            } else if same && known.complete {
                start = (known.readOffset, known.lines)
                base = ClickHouseIngest.base(known.counts)
                runs = known.openRuns
            }
        }
        if base == "" { base = ClickHouseIngest.base([:]) }
        let firstVersion =
            known.flatMap { replaced ? nil : $0.firstVersion }
            ?? ClickHouseIngest.versions.next(UInt64(Date().timeIntervalSince1970 * 1_000_000))
        // What the path held before keeps its row under a name of its own, as on SQLite (unless
        // a follow already copied it to the name it was renamed to: the copy keeps its first version).
        if replaced, let known, known.lines > 0,
            try sourceStates(
                where: "first_version = {v:UInt64} AND first_version != 0 AND path != {p:String}",
                params: ["v": "\(known.firstVersion)", "p": ClickHouseClient.parameter(path)]
            ).isEmpty
        {
            let stamp = TimeFormat.rfc3339(ms: Int64(Date().timeIntervalSince1970 * 1000))
            try moveSource(from: path, to: path + RotationName.replacedMark + stamp + ")")
        }
        // The records of the file the path held before keep its name: their span goes with the
        // read (in its base, which a resumed read and a settled block read again), so `Lineage`
        // can count on from them as from a rotated file's (logrotate renamed it away).
        if replaced, let first = known?.counts["first_time_ms"].flatMap({ Int64($0) }),
            let last = known?.counts["last_time_ms"].flatMap({ Int64($0) })
        {
            base += ",\(ClickHouseIngest.previousFirst)=\(first),\(ClickHouseIngest.previousLast)=\(last)"
        }
        // A read is named by the file's fingerprint when it started and its first line: a file
        // read again under a new name is one whose bytes changed, whose records collapse by identity.
        let segment = resumed ?? "\(fingerprint):from:\(start.lines)"
        let opened: OpenedStream
        switch try OpenedStream.open(f, offset: start.offset, lines: start.lines, st, options: options, &fs) {
        case .refused(let why):
            // Looked at again by the next run (its head only: a format forced or defined since may
            // read it); refused again unchanged and for the same reason, it is not reported again.
            let refusal = Refusal(fingerprint: fingerprint, reason: Redactor.redact(why))
            fs.refused = refusal.reason
            fs.format = Ingester.refusedFormat
            fs.unchanged = refusal == refusedBefore
            if !fs.unchanged {
                let client = self.client, db = self.db
                var row = Array("{\"path\":".utf8) + ClickHouseIngest.json(path) + Array(",\"fingerprint\":".utf8)
                row += ClickHouseIngest.json(refusal.fingerprint) + Array(",\"reason\":".utf8) + ClickHouseIngest.json(refusal.reason)
                row += Array(",\"version\":\(ClickHouseIngest.versions.next(UInt64(Date().timeIntervalSince1970 * 1_000_000)))}\n".utf8)
                let data = Data(row)
                try inserts.add { _ = try client.execute("INSERT INTO \(db).refused FORMAT JSONEachRow", data: data) }
            }
            return fs
        case .opened(var o):
            // Repeats go on being numbered from the runs open where the read starts.
            o.openRuns = ClickHouseIngest.runs(runs)
            opened = o
        }
        let headLength = Int(min(st?.size ?? 0, 65_536))
        let head = Ingester.headHash(path, length: headLength) ?? ""
        let rows = RecordRows(encoding: .rowBinary)
        rows.start(path: path)
        let batch = EncodedRows()
        var sent = skip, batches = 0, rejectBatches = 0
        var repeats = RepeatLedger(ClickHouseIngest.runs(runs), fresh: start.lines == 0)
        // Where the read ends (only a complete row is read on from: its rows mid-read keep none).
        var openRuns = ""
        // A record this file stored from the same line is its own (sent by a killed run, or by a
        // run reading it alongside), not a duplicate: unless the path held another file, whose
        // records those may be.
        let ownAt: String? = replaced ? nil : path
        let client = self.client, db = self.db
        let format = fs.format
        // How the read identifies its records (set before it starts; nil outside a rotation set).
        var identities: Identities?
        func state(_ error: String?) -> [String: String] {
            var row = ClickHouseIngest.sourceRow(
                path, fingerprint, format, rows, error, ambiguous: identities?.lineage.ambiguous ?? 0, base: base)
            row["read_offset"] = "\(rows.lastLine > 0 ? rows.lastOffset : start.offset)"
            row["head_len"] = "\(headLength)"
            row["head_hash"] = head
            row["segment_offset"] = "\(start.offset)"
            row["segment_lines"] = "\(start.lines)"
            row["segment_base"] = base
            row["segment"] = segment
            row["segment_runs"] = runs
            row["first_version"] = "\(firstVersion)"
            row["open_runs"] = openRuns
            if rows.lastLine == 0 { row["lines"] = "\(start.lines)" }
            return row
        }
        // The row of the read before any of its records is in: where it starts, the counts before it.
        func openingRow() -> [String: String] {
            var row = ClickHouseIngest.sourceRow(path, fingerprint, format, RecordRows(encoding: .rowBinary), nil, ambiguous: 0, base: base)
            row.merge(state(nil)) { before, _ in before }
            row["lines"] = "\(start.lines)"
            row["read_offset"] = "\(start.offset)"
            return row
        }
        // A batch is named by the read, its first row and its size (the rows the read gives,
        // before those already stored are taken out), and followed by a progress row. A read's
        // first batch is preceded by a row naming the read, so a run killed before that batch's
        // progress row leaves the next one a read to resume, whose first batch finds its rows
        // as its own (new records), not as another file's (duplicates).
        func sendBatch() throws {
            let first = sent, n = batch.count
            batches += 1
            sent += n
            let opening =
                batches == 1 && resumed == nil ? ClickHouseIngest.progressRow(openingRow(), batches: 0, rows: first, complete: false) : nil
            try dropStored(batch, rows: rows, ownAt: ownAt, file: path, shared: shared, inserts)
            unconfirmed.add(path, batch.keys[...])
            storedSpans.widen(batch.keys[...])
            let data =
                batch.count == 0 ? nil : NativeBlock.block(rowBinary: batch.bytes, count: batch.count, columns: RecordRows.binaryColumns)
            let row = ClickHouseIngest.progressRow(state(nil), batches: batches, rows: sent, complete: false)
            batch.removeAll()
            try inserts.add(holdsBlock: true) {
                if let opening { try ClickHouseIngest.writeSources(client, db, [opening]) }
                if let data { try ClickHouseIngest.insertRecords(client, db, data, token: "\(segment):\(first):\(n)") }
                try ClickHouseIngest.writeSources(client, db, [row])
            }
        }
        func sendRejects(all: Bool) throws {
            while rows.rejects.count >= ClickHouseIngest.rejectBatch || all && !rows.rejects.isEmpty {
                let cut = min(rows.rejects.count, ClickHouseIngest.rejectBatch)
                var part = rows.rejects[..<cut]
                rows.rejects.removeFirst(cut)
                let token = "\(segment):rejects:\(rejectBatches)"
                rejectBatches += 1
                try dropStoredRejects(&part, rows: rows, file: path, inserts)
                guard !part.isEmpty else { continue }
                unconfirmed.addRejects(path)
                let data = ClickHouseIngest.rejectRows(path, part)
                try inserts.add(holdsBlock: true) {
                    _ = try client.execute(
                        "INSERT INTO \(db).rejects FORMAT JSONEachRow", settings: ["insert_deduplication_token": token], data: data)
                }
            }
        }
        // A rotated file's records counted on from its predecessors', which are waited for first.
        identities = self.identities(path, base: base) { [unowned self] in
            try send(shared, inserts)
            try inserts.wait()
            unconfirmed.clear()
        }
        let (bytes, readError) = try ClickHouseIngest.readRows(
            opened, rows, pool: pool, skip: skip, into: batch, repeats: &repeats, identities: identities,
            row: {
                if batch.count == batchRows || batch.count == pending {
                    try sendBatch()
                    pending = 0
                }
            },
            chunkEnd: { consumed in
                try sendRejects(all: false)
                ticker.tick(records: max(0, rows.lastLine - start.lines), bytesIn: consumed)
            })
        ticker.add(records: max(0, rows.lastLine - start.lines))
        ticker.fileDone(bytes: bytes)
        let tail = (first: sent, rows: batch.count)
        repeats.prune(line: rows.lastLine, offset: rows.lastOffset)
        sourceSpans.widen(path, first: rows.counts.minT, last: rows.counts.maxT)
        if let ambiguous = identities?.lineage.ambiguous, ambiguous > 0 { fs.warnings.append(Lineage.warning(ambiguous: ambiguous)) }
        openRuns = ClickHouseIngest.text(repeats.runs.values)
        if tail.rows > 0 { try dropStored(batch, rows: rows, ownAt: ownAt, file: path, shared: shared, inserts) }
        try sendRejects(all: true)
        if !rows.metrics.isEmpty {
            // A delivery-metrics export is a few rows a day: one insert. A day sent again
            // replaces the earlier count (the table keeps the last row of a day, type and status).
            let data = ClickHouseIngest.metricRows(path, rows.metrics), token = "\(segment):metrics"
            rows.metrics = []
            try inserts.add(holdsBlock: true) {
                _ = try client.execute(
                    "INSERT INTO \(db).apple_metrics FORMAT JSONEachRow", settings: ["insert_deduplication_token": token], data: data)
            }
        }
        rows.summarize(into: &fs)
        fs.bytes = bytes
        if let readError {
            fs.complete = false
            fs.error = "\(readError)"
        }
        let stats = state(fs.error)
        guard tail.rows > 0 else {
            let row = ClickHouseIngest.progressRow(stats, batches: batches, rows: sent, complete: fs.complete)
            try inserts.add { try ClickHouseIngest.writeSources(client, db, [row]) }
            return fs
        }
        unconfirmed.add(path, batch.keys[...])
        storedSpans.widen(batch.keys[...])
        shared.add(
            rows: batch.bytes, count: batch.count,
            announce: ClickHouseIngest.progressRow(state(nil), batches: batches, rows: tail.first, pending: tail.rows, complete: false),
            final: ClickHouseIngest.progressRow(stats, batches: batches + 1, rows: tail.first + tail.rows, complete: fs.complete))
        if shared.count >= batchRows { try send(shared, inserts) }
        return fs
    }

    /// A read's records as rows, in file order: the first `skip` are counted and not written
    /// (in since an earlier run); each one after is written to `batch`, then `row` is called;
    /// `chunkEnd` after each parsed chunk, with the file's bytes read so far. The same read gives
    /// the same rows every time, which a resumed read and the settling of a shared block rely on.
    /// Returns the bytes read and the input error that ended the read early, if any.
    static func readRows(
        _ opened: OpenedStream, _ rows: RecordRows, pool: ChunkPool, skip: Int, into batch: EncodedRows,
        repeats: inout RepeatLedger, identities: Identities?, row: () throws -> Void,
        chunkEnd: (_ consumed: Int64) throws -> Void = { _ in }
    ) throws -> (bytes: Int64, readError: Error?) {
        var index = 0
        let (bytes, readError, _) = try ParsedFile.read(opened, pool: pool) { chunk in
            try chunk.items.withUnsafeBufferPointer { items in
                for i in items.indices {
                    // A line inside an unfinished multi-line record is not a resume position.
                    repeats.note(items[i], resumable: items[i].kind != .pending && items[i].lineNumber > 0)
                    var renumbered: ParsedItem?
                    if let identities, items[i].kind == .event {
                        let identity = try identities.identify(items[i])
                        if identity != items[i].hash {
                            renumbered = items[i]
                            renumbered!.hash = identity
                        }
                    }
                    let mark = batch.bytes.count
                    guard renumbered.map({ rows.take($0, into: &batch.bytes) }) ?? rows.take(items[i], into: &batch.bytes) else { continue }
                    index += 1
                    if index <= skip {
                        batch.bytes.removeSubrange(mark...)
                        continue
                    }
                    batch.added(renumbered ?? items[i], start: mark)
                    try row()
                }
            }
            try chunkEnd(chunk.consumed)
        }
        return (bytes, readError)
    }

    /// Counts as `segment_base` keeps them (name=value,...): those of a read that went before.
    static func base(_ counts: [String: String]) -> String {
        SourceState.countColumns.map { "\($0)=\(counts[$0] ?? ($0.hasSuffix("time_ms") ? "\\N" : "0"))" }.joined(separator: ",")
    }

    /// The numbers a `base` holds, by name (a NULL, `\\N`, is left out).
    static func values(ofBase base: String) -> [String: Int64] {
        var values: [String: Int64] = [:]
        for pair in base.split(separator: ",") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            if kv.count == 2, let v = Int64(kv[1]) { values[String(kv[0])] = v }
        }
        return values
    }

    /// What `sources` keeps of a file read so far, as the SQLite ingest counts it into its row:
    /// `base` (the counts of the reads before this one) plus this read's, `ambiguous` of them the
    /// duplicates `Lineage` could not tell from lines of their own (values as text, for query
    /// parameters).
    static func sourceRow(
        _ path: String, _ fingerprint: String, _ format: String, _ rows: RecordRows, _ error: String?, ambiguous: Int, base: String
    ) -> [String: String] {
        let before = values(ofBase: base)
        func add(_ name: String, _ n: Int) -> String { "\((before[name] ?? 0) + Int64(n))" }
        let c = rows.counts
        var row = ["path": path, "fingerprint": fingerprint, "format": format]
        for k in EventKind.allCases { row["n_" + k.name] = add("n_" + k.name, c.records[k]) }
        row["duplicates"] = add("duplicates", c.duplicates)
        row["ambiguous"] = add("ambiguous", ambiguous)
        row["rejects"] = add("rejects", c.rejects)
        row["skipped"] = add("skipped", c.skipped)
        row["ignored"] = add("ignored", c.ignored)
        row["lines"] = "\(rows.lastLine)"
        row["error"] = error ?? "\\N"
        let first = [before["first_time_ms"], c.minT].compactMap { $0 }.min()
        let last = [before["last_time_ms"], c.maxT].compactMap { $0 }.max()
        row["first_time_ms"] = first.map { "\($0)" } ?? "\\N"
        row["last_time_ms"] = last.map { "\($0)" } ?? "\\N"
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

    /// Apple delivery-metrics rows as JSONEachRow rows of the `apple_metrics` table.
    static func metricRows(_ path: String, _ metrics: [(day: String, pushType: String, status: String, count: Int64)]) -> Data {
        var out: [UInt8] = []
        let source = json(path)
        for m in metrics {
            out += Array("{\"day\":".utf8) + json(m.day) + Array(",\"push_type\":".utf8) + json(m.pushType)
            out += Array(",\"status\":".utf8) + json(m.status) + Array(",\"count\":\(m.count),\"source\":".utf8) + source
            out += Array("}\n".utf8)
        }
        return Data(out)
    }

    /// The file's row in `sources`, as written after each batch and at the end: `stats` (the
    /// read's counts and where it started) with how far it got.
    /// Its `version` is taken when the row is made, so the files' rows keep the order they were
    /// read in (the order `rejects` lists files in), and a file's later row always wins.
    static func progressRow(_ stats: [String: String], batches: Int, rows: Int, pending: Int = 0, complete: Bool) -> [String: String] {
        let now = Date().timeIntervalSince1970
        var row = stats
        row["batches_done"] = "\(batches)"
        row["rows_done"] = "\(rows)"
        row["pending_rows"] = "\(pending)"
        row["pending_block"] = ""
        row["complete"] = complete ? "1" : "0"
        row["ingested_ms"] = "\(Int64(now * 1000))"
        row["version"] = "\(versions.next(UInt64(now * 1_000_000)))"
        return row
    }

    /// Versions of the `sources` rows a run makes: microseconds, strictly increasing.
    static let versions = VersionClock()

    final class VersionClock: @unchecked Sendable {
        private let lock = NSLock()
        private var last: UInt64 = 0

        /// `now`, or one past the last version given when that is not earlier.
        func next(_ now: UInt64) -> UInt64 {
            lock.lock()
            defer { lock.unlock() }
            last = max(now, last + 1)
            return last
        }
    }

    /// Rows of `sources` (each with the same columns) in one insert: one block, so all of them
    /// arrive or none. Values as `progressRow` writes them: text, `\\N` for NULL.
    static func writeSources(_ client: ClickHouseClient, _ db: String, _ rows: [[String: String]]) throws {
        guard let names = rows.first?.keys.sorted() else { return }
        let nullable: Set = ["error", "first_time_ms", "last_time_ms"]
        var body = ""
        for row in rows {
            body += names.map { name in
                let value = row[name] ?? ""
                return nullable.contains(name) && value == "\\N" ? value : ClickHouseClient.parameter(value)
            }.joined(separator: "\t")
            body += "\n"
        }
        _ = try client.execute(
            "INSERT INTO \(db).sources (\(names.joined(separator: ", "))) FORMAT TabSeparated", data: Data(body.utf8))
    }

    /// A `Native` block of records, dropped by the server if a block with `token` arrived before.
    static func insertRecords(_ client: ClickHouseClient, _ db: String, _ data: Data, token: String) throws {
        // optimize_on_insert 0: the server would otherwise collapse the block's equal keys as a
        // merge does, row by row over every column, which more than doubled its cost; a block
        // holds a record twice only when two files hold it (RecordRows drops a file's own
        // duplicates), as two blocks would, and the reads are FINAL.
        _ = try client.execute(
            "INSERT INTO \(db).records (\(RecordDump.columns.joined(separator: ", "))) FORMAT Native",
            settings: ["insert_deduplication_token": token, "optimize_on_insert": "0"], data: data)
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
}

/// The inserts of an ingest, run in order on a thread of their own: the next batch is parsed
/// and encoded while one is in flight. At most one job holding a block waits besides the one
/// running (memory: three batches); progress rows queue without holding up the reader. After a
/// job fails, the rest are dropped and the failure is thrown to the caller, so a progress row is
/// never written for a batch that did not arrive.
final class InsertQueue: @unchecked Sendable {
    private let cond = NSCondition()
    private var jobs: [(run: @Sendable () throws -> Void, holdsBlock: Bool)] = []
    private var waitingBlocks = 0
    private var busy = false
    private var closed = false
    private var failure: Error?

    init() {
        let thread = Thread { [self] in work() }
        thread.start()
    }

    /// Queues a job; one that holds a block waits while another such job waits. Throws the
    /// failure of an earlier job.
    func add(holdsBlock: Bool = false, _ job: @escaping @Sendable () throws -> Void) throws {
        cond.lock()
        defer { cond.unlock() }
        while holdsBlock && waitingBlocks > 0 && failure == nil { cond.wait() }
        if let failure { throw failure }
        jobs.append((job, holdsBlock))
        if holdsBlock { waitingBlocks += 1 }
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
            if job.holdsBlock { waitingBlocks -= 1 }
            busy = true
            cond.broadcast()
            cond.unlock()
            var error: Error?
            do { try job.run() } catch let e { error = e }
            cond.lock()
            busy = false
            if let error, failure == nil {
                failure = error
                jobs.removeAll()
                waitingBlocks = 0
            }
            cond.broadcast()
        }
        cond.unlock()
    }
}
