import Foundation

/// Carries a stage to the thread that runs it. The stage's reader, format and builder are not
/// thread-safe; handing them over is safe because the thread that built the stage leaves them
/// alone from `Thread.start()` until the parsing thread signals that `run()` returned. The two
/// threads share only the ChunkQueue and ChunkPool, which lock.
struct ParsingStageHandOver: @unchecked Sendable {
    let stage: ParsingStage
}

/// Inflates, splits, validates, parses and hashes lines on its own thread, so the writer thread
/// spends its time in SQLite.
struct ParsingStage {
    static let chunkLines = 4096
    /// The first chunk of a file is sent sooner, so the writer does not wait long for a new file.
    static let firstChunkLines = 256
    static let chunkBytes = 4 << 20

    let reader: LineReader
    let format: LineFormat
    let builder: EventBuilder
    let file: FileByteSource
    let skipThrough: Int
    let queue: ChunkQueue
    let pool: ChunkPool
    /// A syslog prefix the file's lines carry (detected with the format), or nil.
    let prefix: SyslogPrefix?
    /// Holds a line without its escape sequences.
    let cleaned = RecordBuffer()
    /// Keeps the text of the first lines the format passes over.
    let ignoredLines = IgnoredLines()
    /// Numbers identical records within the file (their identity).
    let occurrences = OccurrenceCounter()
    /// The hash of the file's first line, mixed into its rejects' identity: the same junk at the
    /// same line of another file is another reject, in a copy of this file the same one.
    var context: (Int64, Int64) = (0, 0)
    /// A resumed read replays the lines before its start that the occurrence window reaches
    /// through this stage (its own format and builder, so the real ones start fresh).
    var warmUp: WarmUp?

    /// The stage that replays lines for the occurrence counter only.
    final class WarmUp {
        let stage: ParsingStage
        init(_ stage: ParsingStage) { self.stage = stage }
    }

    /// Runs to the end of the input; returns the input error that ended it early, if any.
    func run() -> Error? {
        var chunk = pool.take(capacity: ParsingStage.chunkBytes)
        var chunkLines = ParsingStage.firstChunkLines
        var readError: Error?
        /// Moves an item (and, for an event, the bytes it points into) into the chunk.
        func emit(_ item: inout ParsedItem, _ source: ByteSlice) throws {
            if item.kind == .event {
                // Move the event's bytes (the record and the builder's arena) into the chunk.
                let arena = ByteSlice(start: builder.arena, count: builder.arenaUsed)
                if chunk.used + source.count + arena.count > chunk.capacity {
                    try send(&chunk, minimum: source.count + arena.count)
                }
                let newSource = chunk.copy(source), newArena = chunk.copy(arena)
                let s0 = source.baseAddress, a0 = arena.baseAddress
                item.event.rebase { slice in
                    guard let slice, let p = slice.baseAddress else { return slice }
                    if let s0, p >= s0 && p < s0 + source.count {
                        return ByteSlice(start: newSource + (p - s0), count: slice.count)
                    }
                    if let a0, p >= a0 && p < a0 + arena.count {
                        return ByteSlice(start: newArena + (p - a0), count: slice.count)
                    }
                    return slice  // static strings ("production", "authorized", ...)
                }
            }
            chunk.items.append(item)
            if chunk.items.count >= chunkLines {
                try send(&chunk, minimum: 0)
                chunkLines = ParsingStage.chunkLines
            }
        }
        do {
            try reader.forEachLine { line in
                if line.number <= skipThrough {
                    if let w = warmUp, line.number > skipThrough - OccurrenceCounter.windowLines {
                        w.stage.count(line, into: occurrences)
                    }
                    return
                }
                var (item, bytes, many) = classify(line)
                if item.kind == .event {
                    item.hash = occurrences.identity(item.hash, time: item.event.time!, line: line.number, offset: line.endOffset)
                }
                guard many else {
                    try emit(&item, format.spanned?.bytes ?? bytes)
                    return
                }
                // Several records in one line (or one multi-line object): each is its own item,
                // identified by the record and its place in it; only the last one moves the
                // resume position, so a crash between them re-reads the line.
                let record = format.spanned?.bytes ?? bytes
                let recordLine = format.spanned?.firstLine ?? line.number
                let whole = LineHash.hash(record)
                var k = 0
                while let outcome = format.nextEntry() {
                    k += 1
                    var e = item
                    e.lineNumber = 0
                    e.recordLine = recordLine
                    e.hash = (whole.0, whole.1 ^ Int64(k) &* 0x5851_F42D_4C95_7F2D)
                    switch outcome {
                    case .event:
                        e.kind = .event
                        e.event = builder.event
                        e.hash = occurrences.identity(e.hash, time: e.event.time!, line: line.number, offset: line.endOffset)
                    case .reject(let reason):
                        e = rejectItem(item, record, recordLine, reason, entry: k)
                        e.lineNumber = 0
                    case .skip: e.kind = .skip
                    default: e.kind = .ignore
                    }
                    try emit(&e, record)
                }
                // The line's own item closes it: it carries the resume position.
                item.kind = k == 0 ? .ignore : .blank
                if k == 0 { item.text = ignoredLines.keep(record) }
                try emit(&item, record)
            }
        } catch let e as InputError {
            readError = e
        } catch {
            return nil  // cancelled by the writer
        }
        if let open = format.endOfInput() {
            var item = ParsedItem(kind: .reject)
            item.recordLine = open.line
            item.lineNumber = 0
            item.reason = open.reason
            item.text = Redactor.redact(String(decoding: open.bytes, as: UTF8.self))
            let legacy = RejectIdentity.hash(open.bytes.withUnsafeBufferPointer { LineHash.hash($0) }, line: open.line)
            item.hash = RejectIdentity.inFile(legacy, context: context)
            item.legacyHash = RecordWriter.lineHash(legacy)
            chunk.items.append(item)
        }
        chunk.consumed = file.consumed
        _ = queue.push(chunk)
        queue.close()
        return readError
    }

    func send(_ chunk: inout ParsedChunk, minimum: Int) throws {
        chunk.consumed = file.consumed
        guard queue.push(chunk) else { throw IngestError.cancelled }
        chunk = pool.take(capacity: minimum)
    }

    /// A rejected record: its identity is its bytes (the whole record when it spans lines) and
    /// its first line number (its position in the file), so every occurrence counts once and a re-read copy of the
    /// file adds none; its text is the start of the record.
    func rejectItem(_ base: ParsedItem, _ record: ByteSlice, _ firstLine: Int, _ reason: RejectReason, entry: Int = 0) -> ParsedItem {
        var r = base
        r.kind = .reject
        r.reason = reason
        r.recordLine = firstLine
        r.text = Redactor.redact(String(decoding: ByteSlice(rebasing: record.prefix(512)), as: UTF8.self))
        let legacy = RejectIdentity.hash(LineHash.hash(record), line: firstLine, entry: entry)
        r.hash = RejectIdentity.inFile(legacy, context: context)
        r.legacyHash = RecordWriter.lineHash(legacy)
        return r
    }

    /// Reads a line before the resume point only to number the records after it.
    func count(_ line: Line, into occurrences: OccurrenceCounter) {
        let (item, bytes, many) = classify(line)
        if item.kind == .event {
            _ = occurrences.identity(item.hash, time: item.event.time!, line: line.number, offset: line.endOffset)
        }
        guard many else { return }
        let whole = LineHash.hash(format.spanned?.bytes ?? bytes)
        var k = 0
        while let outcome = format.nextEntry() {
            k += 1
            guard case .event = outcome, let t = builder.event.time else { continue }
            _ = occurrences.identity(
                (whole.0, whole.1 ^ Int64(k) &* 0x5851_F42D_4C95_7F2D), time: t, line: line.number, offset: line.endOffset)
        }
    }

    /// Everything the single-threaded ingest did per line, except writing. Returns the item, the
    /// record's bytes (escape sequences removed) and whether the line holds several records.
    func classify(_ line: Line) -> (ParsedItem, ByteSlice, Bool) {
        var item = ParsedItem(kind: .blank)
        item.lineNumber = line.number
        item.recordLine = line.number
        item.endOffset = line.endOffset
        var b = line.bytes
        if line.oversized {
            var r = rejectItem(item, b, line.number, .lineTooLong)
            r.hash.0 ^= line.endOffset
            r.legacyHash ^= line.endOffset
            return (r, b, false)
        }
        if b.isEmpty || isBlank(b) { return (item, b, false) }
        if !UTF8Check.isValid(b) { return (rejectItem(item, b, line.number, .invalidUTF8), b, false) }
        if memchr(b.baseAddress!, 0, b.count) != nil { return (rejectItem(item, b, line.number, .nulByte), b, false) }
        if ANSIEscapes.present(b) { b = ANSIEscapes.strip(b, into: cleaned) }
        var parsed = b
        if let prefix {
            if let (t, rest) = prefix.split(b) {
                builder.lineTime = t
                parsed = rest
            } else {
                builder.lineTime = nil
            }
        }
        switch format.parse(parsed, number: line.number) {
        case .event:
            item.kind = .event
            item.event = builder.event
            let (bytes, number) = format.spanned ?? (b, line.number)
            item.hash = LineHash.hash(bytes)
            item.recordLine = number
        case .reject(let reason):
            let (bytes, number) = format.spanned ?? (b, line.number)
            return (rejectItem(item, bytes, number, reason), b, false)
        case .skip: item.kind = .skip
        case .ignore:
            item.kind = .ignore
            item.text = ignoredLines.keep(b)
        case .pending: item.kind = .pending
        case .metric(let day, let pushType, let status, let count):
            item.kind = .metric
            item.metric = (day, pushType, status, count)
        case .many:
            return (item, b, true)
        }
        return (item, b, false)
    }

    func isBlank(_ b: ByteSlice) -> Bool {
        for c in b where c != 0x20 && c != 0x09 && c != 0x0D { return false }
        return true
    }
}
