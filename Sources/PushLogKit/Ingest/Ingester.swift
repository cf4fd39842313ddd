import CSQLite
import Foundation

/// Joins Input -> Formats -> Store for a list of paths; one owner of the write connection.
public final class Ingester {
    let db: Database
    /// Parse -> write, shared by every file of the run (it owns the record writer).
    let pipeline: Pipeline
    var writer: RecordWriter { pipeline.writer }
    let options: IngestOptions
    /// The files' rows in `sources`.
    let sources: SourceRows

    /// True when a previous run died before rebuilding the derived facts: this run rebuilds them all.
    let staleAtStart: Bool
    /// The largest send rowid before this run: the rows above it are its own.
    let rowsAtStart: Derived.RowMarks

    public init(db: Database, options: IngestOptions = IngestOptions()) throws {
        self.db = db
        self.options = options
        try SourceRows.mergeDuplicates(db)
        staleAtStart = (try db.scalarInt("SELECT value FROM meta WHERE key = 'derived_stale'") ?? 1) != 0
        rowsAtStart = try Derived.RowMarks.now(db)
        sources = try SourceRows(db: db)
        pipeline = try Pipeline(db: db, sources: sources, batchLines: options.batchLines)
    }

    // MARK: run

    /// Ingests every path; per-file failures are recorded in the summary, never thrown.
    public func run(paths: [String]) throws -> IngestSummary {
        var problems: [String] = [], notes: [String] = []
        let files = FileWalker.expand(paths, problems: &problems, notes: &notes)
        var summary = try run(files: files, problems: problems)
        summary.notes = notes
        return summary
    }

    /// Ingests files already expanded (whether each was named on the command line is kept:
    /// a named file that is not a log is an error, one found in a folder is skipped).
    func run(files expanded: [InputFile], problems: [String] = []) throws -> IngestSummary {
        let started = Date()
        var summary = IngestSummary()
        // A rotated set oldest first: each file's records are counted on from those before it (Lineage).
        let files = RotationName.oldestFirst(SourcePaths.unique(expanded))
        summary.problems = problems
        let totalBytes = files.reduce(Int64(0)) { $0 + (Ingester.fileInfo($1.path)?.size ?? 0) }
        let bulk = try prepareBulkLoad(inputBytes: totalBytes)
        try writer.useStaging(try ClusteredTable.prepareStaging(db, bulk: bulk))
        if bulk || staleAtStart || options.fullRefresh { writer.giveUpTouching() }  // every derived fact is rebuilt
        var ticker = ProgressTicker(total: files.count, bytesTotal: totalBytes, callback: options.progress, started: started)
        let loadStart = Date()
        var stopped = false
        // Records and the facts derived from them are committed together: a reader sees the
        // database before this run or after it, never records whose facts are not there yet.
        // A bulk load commits batch by batch instead (a crash keeps its progress); readers
        // refuse its database until it is finished (Store.openForReading).
        let oneTransaction = !bulk
        if oneTransaction { try db.beginRun() }
        defer { try? db.endRun(commit: false) }
        for f in files {
            var fs = FileSummary(path: f.path)
            do {
                try ingestFile(f, &fs, &ticker)
            } catch let e as StoreError {
                // The database itself failed (disk full, I/O error): stop; a bulk load keeps its
                // committed batches, any other run nothing (the deferred endRun rolls it back).
                db.rollbackUnit()
                // A damaged file is the caller's to report whole: no summary reads as a partial success.
                if e.isDamage { throw e }
                fs.complete = false
                fs.error = "\(e)"
                summary.files.append(fs)
                // The database failed, not the log: the message names the database, then where the read was.
                summary.problems.append(
                    "stopped at \(f.path): writing to \(db.path) failed: \(e.message); "
                        + (oneTransaction
                            ? "nothing of this run was kept (the database is as it was before), and the next ingest does it again"
                            : "the batch in progress was rolled back, every committed batch is kept, and the next ingest resumes from there")
                )
                if oneTransaction { summary.forgetCounts() }
                stopped = true
                break
            } catch {
                fs.complete = false
                fs.error = "\(error)"
                db.rollbackUnit()
            }
            ticker.filesDone += 1
            // A file named on the command line that is not a log is an error; one met while
            // walking a folder is skipped with a line saying why.
            if let why = fs.refused, f.named { summary.problems.append("\(f.path): \(why)") }
            summary.files.append(fs)
            if let signal = options.stop?.signalNumber {
                summary.interruptedBy = signal
                summary.problems.append(stopMessage(at: f, signal, oneTransaction: oneTransaction))
                if oneTransaction { summary.forgetCounts() }
                stopped = true
                break
            }
        }
        pipeline.chunkPool.drain()
        let loaded = Date()
        PhaseTimer.add(
            "load", seconds: loaded.timeIntervalSince(loadStart),
            note: String(
                format: "(writer waited %.3fs for lines, parser %.3fs for the writer)", pipeline.queueWaits.writer,
                pipeline.queueWaits.parser))
        // Derived facts only change when records did; an unchanged folder costs a stat per file.
        let changed = summary.files.contains { $0.totalRecords > 0 || !$0.unchanged && $0.lines > 0 }
        if !stopped {
            options.progress?(
                IngestProgress(
                    filesDone: files.count, filesTotal: files.count, records: summary.lines,
                    bytesIn: totalBytes, bytesTotal: totalBytes,
                    seconds: Date().timeIntervalSince(started), phase: "building indexes and derived facts"))
            do {
                db.interruptWhen(options.stop)
                defer { db.interruptWhen(nil) }
                try finalize(rebuildIndexes: bulk, refreshDerived: changed)
                try PhaseTimer.measure("commit") { try db.endRun(commit: true) }
            } catch let e as StoreError where e.sqliteCode == SQLITE_INTERRUPT {
                // A signal during the indexes or derived facts: as if it had come before them.
                let signal = options.stop?.signalNumber ?? SIGTERM
                summary.interruptedBy = signal
                summary.problems.append(stopMessage(at: nil, signal, oneTransaction: oneTransaction))
                if oneTransaction { summary.forgetCounts() }
            }
        }
        summary.seconds = Date().timeIntervalSince(started)
        summary.finalizeSeconds = Date().timeIntervalSince(loaded)
        return summary
    }

    /// What a run stopped by a signal kept: an incremental run is one transaction, so nothing; a
    /// first load its committed batches (the batch in progress is committed up to its last
    /// complete record), and the next ingest finishes it.
    func stopMessage(at file: InputFile?, _ signal: Int32, oneTransaction: Bool) -> String {
        let at = file.map { "stopped at \($0.path): " } ?? "stopped: "
        let next = file?.isStream == true ? "the rest of the stream was not read; the next ingest" : "the next ingest picks the file up and"
        return at + "interrupted by \(InputError.name(signal)); "
            + (oneTransaction
                ? "nothing of this run was kept (the database is as it was before), and the next ingest does it again"
                : "every complete record read is kept; \(next) finishes the load")
    }

    /// For a large load into a small database, drop the secondary indexes and build them at the end.
    /// An empty database always loads this way (its indexes cost nothing to drop).
    func prepareBulkLoad(inputBytes: Int64) throws -> Bool {
        let existing = try sources.storedRecords()
        guard existing == 0 || inputBytes > 32 << 20 && existing * 400 < inputBytes else { return false }
        for name in Schema.secondaryIndexNames { try db.exec("DROP INDEX IF EXISTS \(name)") }
        return true
    }

    /// Moves staged rows into their tables, builds missing indexes and the derived facts reports use.
    func finalize(rebuildIndexes: Bool, refreshDerived: Bool) throws {
        try db.beginUnit()
        do {
            // Moving staged rows and building indexes sort: one SQLite helper thread sorts while this
            // one scans (the parser's core is idle by now), with half the page cache so both sorters
            // stay in the memory budget.
            let helpers = ProcessInfo.processInfo.activeProcessorCount > 1
            if helpers { try db.exec("PRAGMA threads = 1; PRAGMA cache_size = -\(Store.writerCacheKiB / 2)") }
            try ClusteredTable.moveStaged(db)
            if options.recordsOnly {
                if helpers { try db.exec("PRAGMA threads = 0; PRAGMA cache_size = -\(Store.writerCacheKiB)") }
                try db.commitUnit()
                return
            }
            try Schema.dropOutdatedIndexes(db)
            try Schema.createSecondaryIndexes(db)
            if helpers { try db.exec("PRAGMA threads = 0; PRAGMA cache_size = -\(Store.writerCacheKiB)") }
            let stale = try db.scalarInt("SELECT value FROM meta WHERE key = 'derived_stale'") ?? 1
            if refreshDerived || stale != 0 {
                if rebuildIndexes || staleAtStart || writer.touchedAll || options.fullRefresh {
                    try Derived.refresh(db)
                } else {
                    var added = rowsAtStart
                    added.receipts = writer.touchedReceipts
                    try Derived.refresh(db, tokens: writer.touchedTokens, devices: writer.touchedDevices, newRows: added)
                }
                try db.exec("UPDATE meta SET value = 0 WHERE key = 'derived_stale'")
            }
            try PhaseTimer.measure("commit") { try db.commitUnit() }
        } catch {
            db.rollbackUnit()
            throw error
        }
        // Planner statistics from a sample of each index (analysis_limit): full ANALYZE scans of a
        // large database cost more than they tell the planner.
        PhaseTimer.measure("optimize") { try? db.exec("PRAGMA analysis_limit = 1000; PRAGMA optimize") }
    }

    static func fileInfo(_ path: String) -> (size: Int64, mtime: Int64)? {
        guard path != "-" else { return nil }
        var st = Foundation.stat()
        guard stat(path, &st) == 0 else { return nil }
        return (Int64(st.st_size), Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec))
    }
}
