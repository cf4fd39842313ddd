import Foundation

extension Ingester {
    /// The first bytes of a file identify it: same head and not smaller means the same file, maybe grown.
    static func headHash(_ path: String, length: Int) -> String? {
        guard let fh = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? fh.close() }
        guard let data = try? fh.read(upToCount: length) else { return nil }
        let h = data.withUnsafeBytes { LineHash.hash($0.bindMemory(to: UInt8.self)) }
        return String(UInt64(bitPattern: h.0), radix: 16) + String(UInt64(bitPattern: h.1), radix: 16)
    }

    func ingestFile(_ f: InputFile, _ fs: inout FileSummary, _ ticker: inout ProgressTicker) throws {
        let started = Date()
        defer { fs.seconds = Date().timeIntervalSince(started) }
        let st = Ingester.fileInfo(f.path)
        if !f.isStdin && st == nil { throw InputError.unreadable(f.path, "cannot stat") }
        let headLen = Int(min(st?.size ?? 0, 65536))
        let head = f.isStdin ? nil : Ingester.headHash(f.path, length: headLen)

        // Find or create the source row; decide between skip, resume and a full read.
        try db.exec("BEGIN IMMEDIATE")
        findSource.reset()
        findSource.bind(1, f.path)
        var srcID: Int64 = 0
        var resumeOffset: Int64 = 0, resumeLines = 0
        var refusedBefore: String?
        if try findSource.step() {
            srcID = findSource.int(0)
            let oldSize = findSource.int(1), oldMtime = findSource.int(2), oldHeadLen = Int(findSource.int(3))
            let oldHead = findSource.string(4)
            let offset = findSource.int(5), lines = Int(findSource.int(6)), complete = findSource.int(7) == 1
            fs.format = findSource.string(8) ?? fs.format
            let oldError = findSource.string(9)
            findSource.reset()
            let same = st != nil && complete && st!.size == oldSize && st!.mtime == oldMtime && head == oldHead
            // A refused file is looked at again (its head only): a format forced or defined since may read it.
            if same && fs.format == Ingester.refusedFormat { refusedBefore = oldError }
            // A binary file stays refused whatever formats are known (unless one is forced).
            let binary = fs.format == Ingester.refusedFormat && (oldError ?? "").hasPrefix("not a text log") && options.inputFormat == nil
            if same && (fs.format != Ingester.refusedFormat || binary) {
                if binary { fs.refused = oldError }
                try db.exec("COMMIT")
                fs.unchanged = true
                return
            }
            // Same beginning as before (compared over the old head length) and not shorter: read on from where we stopped.
            if let st, !f.isStdin, oldHead != nil, st.size >= oldSize || !complete,
               Ingester.headHash(f.path, length: oldHeadLen) == oldHead {
                resumeOffset = offset
                resumeLines = lines
            }
        } else {
            findSource.reset()
            insertSource.bind(1, f.path)
            insertSource.bind(2, Int64(Date().timeIntervalSince1970 * 1000))
            try insertSource.run()
            srcID = db.lastInsertRowID
        }
        try db.exec("COMMIT")

        // Open the stream: gzip by magic bytes, then detect the format from the first lines.
        let file = f.isStdin ? FileByteSource(fd: 0, name: "stdin") : try FileByteSource(path: f.path)
        var magic = [UInt8](repeating: 0, count: 2)
        let got = try magic.withUnsafeMutableBufferPointer { try file.read(into: $0.baseAddress!, count: 2) }
        file.unread(Array(magic[0..<got]))
        let gzip = got == 2 && magic[0] == 0x1f && magic[1] == 0x8b
        var plainSkip = false
        if !gzip && resumeOffset > 0 && !f.isStdin {
            try file.seek(to: resumeOffset)
            plainSkip = true
        }
        let stream: ByteSource = gzip ? try GzipByteSource(input: file) : file
        let peek = PeekingSource(stream, limit: Ingester.headBytes)
        // Not a text log (binary magic, NUL bytes), or no known format in its first lines: refused
        // whole with one line saying why, not stored line by line as rejects.
        if let why = BinarySniffer.refusal(peek.head, magicOnly: options.inputFormat != nil) {
            try refuse(srcID, why, st, headLen, head, &fs)
            fs.unchanged = why == refusedBefore
            return
        }
        let format: LineFormat
        var prefix: SyslogPrefix?
        let detect = { FormatDetector.detect(peek.head, builder: self.builder, library: self.options.formats, mtimeMs: (st?.mtime ?? 0) / 1_000_000,
                                             complete: peek.head.count < Ingester.headBytes) }
        if let forced = options.inputFormat {
            guard let fmt = FormatDetector.make(forced, builder: builder, library: options.formats) else { throw InputError.unreadable(f.path, "unknown input format \(forced)") }
            format = fmt
        } else if plainSkip, let known = FormatDetector.make(fs.format, builder: builder, library: options.formats) {
            format = known
            if case .format(_, let p) = detect() { prefix = p }
        } else {
            switch detect() {
            case .format(let fmt, let p):
                format = fmt
                prefix = p
            case .refused(let why):
                try refuse(srcID, why, st, headLen, head, &fs)
                fs.unchanged = why == refusedBefore  // refused as before: nothing to say again
                return
            }
        }
        fs.format = format.name
        fs.resumedAfterLine = resumeLines
        var fileBytes: Int64 = 0
        let reader = LineReader(source: peek, startOffset: plainSkip ? resumeOffset : 0, startLine: plainSkip ? resumeLines : 0)
        let skipThrough = plainSkip ? 0 : resumeLines

        var batch = BatchCounts()
        var lastOffset = resumeOffset, lastLine = resumeLines
        var inTransaction = false
        let batchLines = options.batchLines
        func commit() throws {
            guard inTransaction else { return }
            let n = batch.lines
            try saveProgress(srcID, lastOffset, lastLine, format.name, &batch, &fs)
            ticker.add(records: n)
            try db.exec("COMMIT")
            inTransaction = false
        }

        // Parsing runs on a second thread; this one writes. The queue bounds the memory in flight.
        let queue = ChunkQueue(capacity: 4)
        let stage = ParsingStage(reader: reader, format: format, builder: builder, file: file,
                                 skipThrough: skipThrough, queue: queue, pool: chunkPool, prefix: prefix)
        builder.lineTime = nil
        let done = DispatchSemaphore(value: 0)
        let outcome = StageOutcome()
        let thread = Thread {
            outcome.readError = stage.run()
            done.signal()  // publishes readError to the waiting writer
        }
        thread.stackSize = 8 << 20
        thread.start()
        do {
            while let chunk = queue.pop() {
                // Through a buffer pointer: an item is ~700 bytes, and reading it out of the array
                // (a class's property) would copy each one.
                try chunk.items.withUnsafeBufferPointer { items in
                    for i in items.indices {
                        if !inTransaction { try db.exec("BEGIN IMMEDIATE"); inTransaction = true }
                        try write(items[i], srcID, &batch)
                        // A line inside an unfinished multi-line record is not a safe resume point.
                        if items[i].kind != .pending && items[i].lineNumber > 0 {
                            lastOffset = items[i].endOffset
                            lastLine = items[i].lineNumber
                        }
                        if batch.lines >= batchLines { try commit() }
                    }
                }
                ticker.tick(records: batch.lines, bytesIn: chunk.consumed)
                fileBytes = chunk.consumed
                try writer.flush()  // the bound rows point into the chunk
                chunkPool.give(chunk)
            }
            try commit()
        } catch {
            writer.discard()
            queue.cancel()
            done.wait()
            throw error
        }
        done.wait()
        queueWaits.writer += queue.writerWaited
        queueWaits.parser += queue.parserWaited
        if let readError = outcome.readError {
            fs.complete = false
            fs.error = "\(readError)"
        }
        // Mark the source complete (or not) with the fingerprint of what was read.
        try db.exec("BEGIN IMMEDIATE")
        finishSource.bind(1, srcID)
        finishSource.bind(2, Int64(fs.complete ? 1 : 0))
        finishSource.bind(3, fs.error)
        finishSource.bindInt(4, st?.size)
        finishSource.bindInt(5, st?.mtime)
        finishSource.bind(6, Int64(headLen))
        finishSource.bind(7, head)
        try finishSource.run()
        try db.exec("COMMIT")
        fs.bytes = fileBytes
        ticker.fileDone(bytes: fileBytes)
        if fs.format == "sns" && fs.totalRecords > 0 {
            fs.warnings.append("SNS delivery-status logging samples successes: success counts may be sampled")
        }
    }

    /// Bytes read ahead for format detection: enough for its 1,000 lines in most logs.
    static let headBytes = 512 << 10
    /// The `sources.format` of a refused file.
    static let refusedFormat = "refused"

    /// Marks a file refused (not a text log, or no known format): no records, the reason kept, and
    /// its fingerprint, so an unchanged refused file is not read again.
    func refuse(_ src: Int64, _ reason: String, _ st: (size: Int64, mtime: Int64)?, _ headLen: Int, _ head: String?, _ fs: inout FileSummary) throws {
        // The reason quotes the file's first line: secrets go as they do from rejected lines.
        let why = Redactor.redact(reason)
        fs.refused = why
        fs.format = Ingester.refusedFormat
        try db.exec("BEGIN IMMEDIATE")
        refuseSource.bind(1, src)
        refuseSource.bind(2, why)
        refuseSource.bindInt(3, st?.size)
        refuseSource.bindInt(4, st?.mtime)
        refuseSource.bind(5, Int64(headLen))
        refuseSource.bind(6, head)
        try refuseSource.run()
        try db.exec("COMMIT")
    }

    /// Writes one parsed item into the open transaction and counts it.
    @inline(__always)
    func write(_ item: ParsedItem, _ src: Int64, _ batch: inout BatchCounts) throws {
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
            try writer.write(item.event, hash: item.hash, src: src, line: item.recordLine)
            batch.written += 1
        case .reject:
            batch.lines += 1
            if try writer.reject(src: src, line: item.recordLine, reason: item.reason, text: item.text, hash: item.hash) {
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
        case .metric:
            batch.lines += 1
            let m = item.metric!
            try writer.appleMetric(day: m.day, pushType: m.pushType, status: m.status, count: m.count, src: src)
            batch.metrics += 1
        }
    }

    func saveProgress(_ src: Int64, _ offset: Int64, _ lines: Int, _ format: String, _ b: inout BatchCounts, _ fs: inout FileSummary) throws {
        try writer.flush()
        b.records = writer.takeInserted()
        b.duplicates += b.written - b.records.total
        let u = updateProgress
        u.bind(1, src); u.bind(2, offset); u.bind(3, Int64(lines)); u.bind(4, format)
        for k in EventKind.allCases { u.bind(Int32(5 + k.rawValue), Int64(b.records[k])) }
        u.bind(12, Int64(b.duplicates)); u.bind(13, Int64(b.rejects)); u.bind(14, Int64(b.skipped))
        u.bind(15, Int64(b.ignored)); u.bind(16, Int64(Date().timeIntervalSince1970 * 1000))
        u.bindInt(17, b.minT); u.bindInt(18, b.maxT)
        try u.run()
        if b.records.total > 0 { try markStale.run() }
        fs.records += b.records
        fs.duplicates += b.duplicates; fs.rejects += b.rejects; fs.skipped += b.skipped
        fs.ignored += b.ignored; fs.lines += b.lines; fs.metrics += b.metrics
        b = BatchCounts()
    }
}

/// The parsing thread's result, read by the writer after the thread signalled it is done.
final class StageOutcome: @unchecked Sendable {
    var readError: Error?
}
