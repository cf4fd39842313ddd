import Foundation

/// Carries a stage to the thread that runs it. The stage's reader, format and sink are not
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
    /// Takes each line through the format and turns what it reports into chunks.
    let sink: ChunkSink
    let skipThrough: Int
    /// A resumed read replays the lines before its start that the occurrence window reaches
    /// through this sink (its own format, sharing the occurrence counter), so the real one
    /// starts fresh.
    var warmUp: ChunkSink?
    /// The runs of repeats open at the resume point (`RepeatLedger`), taken after the replay.
    var openRuns: [OccurrenceCounter.Run] = []

    init(reader: LineReader, sink: ChunkSink, skipThrough: Int) {
        self.reader = reader
        self.sink = sink
        self.skipThrough = skipThrough
    }

    /// Runs to the end of the input; returns the input error that ended it early, if any.
    func run() -> Error? {
        var readError: Error?
        sink.start()
        var restored = openRuns.isEmpty
        do {
            try reader.forEachLine { line in
                if line.number <= skipThrough {
                    if let w = warmUp, line.number > skipThrough - OccurrenceCounter.windowLines {
                        try w.read(line)
                    }
                    return
                }
                if !restored {
                    sink.occurrences.restore(openRuns)
                    restored = true
                }
                try sink.read(line)
            }
        } catch let e as InputError {
            readError = e
        } catch {
            return nil  // cancelled by the writer
        }
        // Stopped by a signal, the input has not ended: a record still open is read by the next run.
        if case .interrupted = readError as? InputError {
            sink.endOfInput(finishing: false)
        } else {
            sink.endOfInput()
        }
        return readError
    }
}

/// The parsing stage's side of the format contract: checks each line before its format sees it
/// (length, UTF-8, NUL bytes, escape sequences, the syslog prefix and its time), and turns what
/// the format reports into `ParsedItem`s. An event's bytes (the line's and the builder's arena)
/// are copied into the chunk with it, so a chunk owns everything its items point to; full chunks
/// go to the writer through the queue.
final class ChunkSink: RecordSink {
    let builder = EventBuilder()
    let format: LineFormat
    /// A syslog prefix the file's lines carry (detected with the format), or nil.
    let prefix: SyslogPrefix?
    /// Numbers identical records within the file (their identity).
    let occurrences: OccurrenceCounter
    /// Only numbers the records it reads, for the lines a resumed read replays: emits nothing.
    let countOnly: Bool
    let file: FileByteSource
    let queue: ChunkQueue
    let pool: ChunkPool
    /// The hash of the file's first line, mixed into its rejects' identity: the same junk at the
    /// same line of another file is another reject, in a copy of this file the same one.
    let context: (Int64, Int64)
    /// Holds a line without its escape sequences.
    let cleaned = RecordBuffer()
    /// Keeps the text of the first lines the format passes over.
    let ignoredLines = IgnoredLines()
    /// Which rejects of this read get their text (the writer keeps no more than these).
    private var rejectTexts = RejectTextBound()

    private var chunk: ParsedChunk?
    private var chunkLines = ParsingStage.firstChunkLines
    /// The line being read: its item so far and its bytes (escape sequences removed).
    private var line = ParsedItem(kind: .blank)
    private var bytes = ByteSlice(start: nil, count: 0)
    private var reported = false
    /// The writer stopped taking chunks; ends the read after the current line.
    private var failure: Error?

    init(
        format: LineFormat, prefix: SyslogPrefix?, occurrences: OccurrenceCounter = OccurrenceCounter(), countOnly: Bool = false,
        file: FileByteSource, queue: ChunkQueue, pool: ChunkPool, context: (Int64, Int64) = (0, 0)
    ) {
        self.format = format
        self.prefix = prefix
        self.occurrences = occurrences
        self.countOnly = countOnly
        self.file = file
        self.queue = queue
        self.pool = pool
        self.context = context
    }

    func start() { chunk = pool.take(capacity: ParsingStage.chunkBytes) }

    /// Reads one line through the format.
    func read(_ input: Line) throws {
        line = ParsedItem(kind: .blank)
        line.lineNumber = input.number
        line.recordLine = input.number
        line.endOffset = input.endOffset
        reported = false
        var b = input.bytes
        bytes = b
        if input.oversized {
            var r = rejectItem(line, b, input.number, .lineTooLong)
            r.hash.0 ^= input.endOffset
            r.legacyHash ^= input.endOffset
            return try emit(&r, b)
        }
        if b.isEmpty || isBlank(b) { return try emit(&line, b) }
        if !UTF8Check.isValid(b) { return reject(.invalidUTF8, nil) }
        if memchr(b.baseAddress!, 0, b.count) != nil { return reject(.nulByte, nil) }
        if ANSIEscapes.present(b) {
            b = ANSIEscapes.strip(b, into: cleaned)
            bytes = b
        }
        var parsed = b
        var lineTime: Int64?
        if let prefix, let (t, rest) = prefix.split(b) {
            lineTime = t
            parsed = rest
        }
        format.parse(parsed, number: input.number, lineTime: lineTime, into: self)
        if let failure { throw failure }
        if !reported {
            // Part of a record still open: not a safe resume position.
            line.kind = .pending
            try emit(&line, b)
        }
    }

    /// At the end of the input: a record still open is a reject (when `finishing`); the last
    /// chunk goes out and the queue closes.
    func endOfInput(finishing: Bool = true) {
        guard !countOnly else { return }
        line = ParsedItem(kind: .reject)
        reported = false
        if finishing { format.finish(into: self) }
        chunk!.consumed = file.consumed
        _ = queue.push(chunk!)
        chunk = nil
        queue.close()
    }

    // MARK: RecordSink

    func record(_ span: RecordSpan?) {
        reported = true
        var item = line
        item.kind = .event
        item.event = builder.event
        let (record, number) = span.map { ($0.bytes, $0.firstLine) } ?? (bytes, line.lineNumber)
        item.recordLine = number
        let h = LineHash.hash(record)
        item.occurrence = occurrences.number(h, time: item.event.time!, line: line.lineNumber, offset: line.endOffset)
        item.countedLine = line.lineNumber
        item.hash = OccurrenceCounter.identity(h, occurrence: item.occurrence)
        send(&item, record)
    }

    func reject(_ reason: RejectReason, _ span: RecordSpan?) {
        reported = true
        let (record, number) = span.map { ($0.bytes, $0.firstLine) } ?? (bytes, line.lineNumber)
        var item = rejectItem(line, record, number, reason)
        if line.kind == .reject {
            // Reported by `finish`: a record left open, not a line, so not a resume position.
            item.lineNumber = 0
            chunk?.items.append(item)
            return
        }
        send(&item, record)
    }

    func skip() {
        reported = true
        var item = line
        item.kind = .skip
        send(&item, bytes)
    }

    func ignore() {
        reported = true
        var item = line
        item.kind = .ignore
        if !countOnly { item.text = ignoredLines.keep(bytes) }
        send(&item, bytes)
    }

    func metric(_ count: DailyCount) {
        reported = true
        var item = line
        item.kind = .metric
        item.metric = (count.day, count.pushType, count.status, count.count)
        send(&item, bytes)
    }

    /// Several records in one line (or one multi-line object): each is its own item, identified
    /// by the record and its place in it; only the line's own item, last, moves the resume
    /// position, so a crash between them re-reads the line.
    func entries(_ entries: [BundledRecord], of span: RecordSpan?, lineTime: Int64?) {
        reported = true
        let record = span?.bytes ?? bytes
        let recordLine = span?.firstLine ?? line.lineNumber
        let whole = LineHash.hash(record)
        var k = 0
        for entry in entries {
            k += 1
            var e = line
            e.lineNumber = 0
            e.recordLine = recordLine
            e.hash = (whole.0, whole.1 ^ Int64(k) &* 0x5851_F42D_4C95_7F2D)
            switch entry {
            case .record(let kind, let fields):
                if let reason = builder.build(kind: kind, fields: fields, lineTime: lineTime) {
                    e = rejectItem(line, record, recordLine, reason, entry: k)
                    e.lineNumber = 0
                } else {
                    e.kind = .event
                    e.event = builder.event
                    e.occurrence = occurrences.number(e.hash, time: e.event.time!, line: line.lineNumber, offset: line.endOffset)
                    e.countedLine = line.lineNumber
                    e.hash = OccurrenceCounter.identity(e.hash, occurrence: e.occurrence)
                }
            case .reject(let reason):
                e = rejectItem(line, record, recordLine, reason, entry: k)
                e.lineNumber = 0
            case .skip: e.kind = .skip
            case .ignore: e.kind = .ignore
            }
            send(&e, record)
        }
        var item = line
        item.kind = k == 0 ? .ignore : .blank
        if k == 0 && !countOnly { item.text = ignoredLines.keep(record) }
        send(&item, record)
    }

    // MARK: items and chunks

    /// Emits an item unless the writer has stopped.
    private func send(_ item: inout ParsedItem, _ source: ByteSlice) {
        guard failure == nil else { return }
        do { try emit(&item, source) } catch { failure = error }
    }

    /// Moves an item (and, for an event, the bytes it points into) into the chunk.
    private func emit(_ item: inout ParsedItem, _ source: ByteSlice) throws {
        guard !countOnly else { return }
        if item.kind == .event {
            // Move the event's bytes (the record and the builder's arena) into the chunk.
            let arena = ByteSlice(start: builder.arena, count: builder.arenaUsed)
            if chunk!.used + source.count + arena.count > chunk!.capacity {
                try sendChunk(minimum: source.count + arena.count)
            }
            let newSource = chunk!.copy(source), newArena = chunk!.copy(arena)
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
        chunk!.items.append(item)
        if chunk!.items.count >= chunkLines {
            try sendChunk(minimum: 0)
            chunkLines = ParsingStage.chunkLines
        }
    }

    private func sendChunk(minimum: Int) throws {
        chunk!.consumed = file.consumed
        guard queue.push(chunk!) else { throw IngestError.cancelled }
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
        guard !countOnly else { return r }
        // Redacting is most of a reject's cost: past the bound, junk repeated a million times skips it.
        if rejectTexts.keep(reason.description) {
            r.text = Redactor.redact(String(decoding: ByteSlice(rebasing: record.prefix(512)), as: UTF8.self))
        } else {
            r.textKept = false
        }
        let legacy = RejectIdentity.hash(LineHash.hash(record), line: firstLine, entry: entry)
        r.hash = RejectIdentity.inFile(legacy, context: context)
        r.legacyHash = RecordWriter.lineHash(legacy)
        return r
    }

    func isBlank(_ b: ByteSlice) -> Bool {
        for c in b where c != 0x20 && c != 0x09 && c != 0x0D { return false }
        return true
    }
}
