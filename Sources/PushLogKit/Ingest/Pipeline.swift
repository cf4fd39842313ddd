import Foundation

/// Parse -> write for one opened file at a time: a `ParsingStage` on its own thread turns lines
/// into chunks of parsed items, and this side writes them through the `RecordWriter`,
/// ending a unit every `batchLines` lines with the position the next run resumes from (a commit
/// during a bulk load, a savepoint inside the run's one transaction otherwise: Database.beginUnit).
final class Pipeline {
    let db: Database
    let writer: RecordWriter
    let sources: SourceRows
    /// Chunk buffers shared by every file's parser: the queue's four, the one being filled, the one being written.
    let chunkPool = ChunkPool(limit: 6)
    /// Lines per unit: a crash during a bulk load loses at most one batch, which the next run re-reads.
    let batchLines: Int
    /// Seconds the writer waited for parsed lines and the parser for the writer (PUSHLOG_TIMINGS).
    private(set) var queueWaits = (writer: 0.0, parser: 0.0)
    private let markStale: Statement

    init(db: Database, sources: SourceRows, batchLines: Int) throws {
        self.db = db
        self.sources = sources
        self.batchLines = batchLines
        writer = try RecordWriter(db: db)
        markStale = try db.prepare("UPDATE meta SET value = 1 WHERE key = 'derived_stale'")
    }

    /// Reads the stream to its end. Returns the bytes read and the input error that ended the
    /// read early, if any; a database error is thrown (the open batch is rolled back by the caller).
    func run(
        _ opened: OpenedStream, _ plan: ResumePlan, _ fs: inout FileSummary,
        _ ticker: inout ProgressTicker
    ) throws -> (bytes: Int64, readError: Error?) {
        var batch = BatchCounts()
        var lineage = Lineage(siblings: plan.siblings, firstTime: plan.firstTime)
        var lastOffset = plan.offset, lastLine = plan.lines
        var repeats = RepeatLedger(plan.openRuns, fresh: plan.lines == 0)
        var inTransaction = false
        var ambiguousCommitted = 0
        func commit() throws {
            guard inTransaction else { return }
            let n = batch.lines
            batch.ambiguous = lineage.ambiguous - ambiguousCommitted
            // The file's counts say what is committed: a batch whose commit fails (a full disk) is not in them.
            let before = fs, repeatsBefore = repeats
            try saveProgress(plan.sourceID, lastOffset, lastLine, opened.format.name, &batch, &fs)
            repeats.prune(line: lastLine, offset: lastOffset)
            if repeats.changed {
                try sources.saveRuns(plan.sourceID, repeats.runs.values)
                repeats.saved()
            }
            do { try db.commitUnit() } catch {
                fs = before
                repeats = repeatsBefore
                throw error
            }
            ambiguousCommitted = lineage.ambiguous
            ticker.add(records: n)
            inTransaction = false
        }

        // Parsing runs on a second thread (ParsedFile); this one writes.
        let read: (bytes: Int64, readError: Error?, waits: (reader: Double, parser: Double))
        do {
            read = try ParsedFile.read(opened, pool: chunkPool) { chunk in
                // Through a buffer pointer: an item is ~700 bytes, and reading it out of the array
                // (a class's property) would copy each one.
                try chunk.items.withUnsafeBufferPointer { items in
                    for i in items.indices {
                        if !inTransaction { try db.beginUnit(); inTransaction = true }
                        try write(items[i], plan.sourceID, &batch, &lineage)
                        // A line inside an unfinished multi-line record is not a safe resume point.
                        let resumable = items[i].kind != .pending && items[i].lineNumber > 0
                        repeats.note(items[i], resumable: resumable)
                        if resumable {
                            lastOffset = items[i].endOffset
                            lastLine = items[i].lineNumber
                        }
                        if batch.lines >= batchLines { try commit() }
                    }
                }
                ticker.tick(records: batch.lines, bytesIn: chunk.consumed)
                try writer.flush()  // the bound rows point into the chunk
            }
            try commit()
        } catch {
            writer.discard()
            throw error
        }
        if lineage.ambiguous > 0 { fs.warnings.append(Lineage.warning(ambiguous: lineage.ambiguous)) }
        queueWaits.writer += read.waits.reader
        queueWaits.parser += read.waits.parser
        return (read.bytes, read.readError)
    }

    /// Writes one parsed item into the open transaction and counts it.
    @inline(__always)
    func write(_ item: ParsedItem, _ src: Int64, _ batch: inout BatchCounts, _ lineage: inout Lineage) throws {
        switch item.kind {
        case .blank:
            batch.blank += 1
        case .pending:
            break
        case .event:
            batch.lines += 1
            let t = item.event.time!
            if batch.minT == nil || t < batch.minT! { batch.minT = t }
            if batch.maxT == nil || t > batch.maxT! { batch.maxT = t }
            try writer.write(item.event, hash: try lineage.identity(item, writer), src: src, line: item.recordLine)
            batch.written += 1
        case .reject:
            batch.lines += 1
            if try writer.reject(
                src: src, line: item.recordLine, reason: item.reason, text: item.textKept ? item.text : nil, hash: item.hash,
                legacy: item.legacyHash)
            {
                batch.rejects += 1
            } else {
                batch.duplicates += 1
            }
        case .skip:
            batch.lines += 1
            batch.skipped += 1
        case .ignore:
            batch.lines += 1
            batch.ignored += 1
            if !item.text.isEmpty { batch.ignoredLines.append((item.recordLine, item.text)) }
        case .metric:
            batch.lines += 1
            let m = item.metric!
            try writer.appleMetric(day: m.day, pushType: m.pushType, status: m.status, count: m.count, src: src)
            batch.metrics += 1
        }
    }

    func saveProgress(_ src: Int64, _ offset: Int64, _ lines: Int, _ format: String, _ b: inout BatchCounts, _ fs: inout FileSummary) throws
    {
        try writer.flush()
        b.records = writer.takeInserted()
        b.duplicates += b.written - b.records.total
        try sources.addBatch(src, offset: offset, lines: lines, format: format, b)
        if b.records.total > 0 { try markStale.run() }
        fs.records += b.records
        fs.duplicates += b.duplicates; fs.rejects += b.rejects; fs.skipped += b.skipped
        fs.ignored += b.ignored; fs.lines += b.lines; fs.metrics += b.metrics
        if let t = b.maxT { fs.newestTime = max(fs.newestTime ?? t, t) }
        fs.ignoredLines += b.ignoredLines.prefix(IgnoredLines.kept - fs.ignoredLines.count)
        b = BatchCounts()
    }
}

/// The parsing thread's result, read by the writer after the thread signalled it is done.
final class StageOutcome: @unchecked Sendable {
    var readError: Error?
}
