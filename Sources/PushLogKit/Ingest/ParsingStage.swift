import Foundation

/// What the parsing thread made of one line, ready for the writer.
struct ParsedItem {
    enum Kind { case event, reject, skip, ignore, pending, metric, blank }
    var kind: Kind
    var event = Event()
    var hash: (Int64, Int64) = (0, 0)
    /// The record's line number (the first line of a record spanning lines).
    var recordLine = 0
    /// The physical line and the stream offset after it: the resume position once committed.
    var lineNumber = 0
    var endOffset: Int64 = 0
    var reason = ""
    var text = ""
    var metric: (day: String, pushType: String, status: String, count: Int64)?
}

/// Inflates, splits, validates, parses and hashes lines on its own thread, so the writer thread
/// spends its time in SQLite.
struct ParsingStage {
    static let chunkLines = 4096
    /// The first chunk of a file is sent sooner, so the writer does not wait long for a new file.
    static let firstChunkLines = 256
    static let chunkBytes = 4 << 20

    struct Cancelled: Error {}

    let reader: LineReader
    let format: LineFormat
    let builder: EventBuilder
    let file: FileByteSource
    let skipThrough: Int
    let queue: ChunkQueue
    let pool: ChunkPool

    /// Runs to the end of the input; returns the input error that ended it early, if any.
    func run() -> Error? {
        var chunk = pool.take(capacity: ParsingStage.chunkBytes)
        var chunkLines = ParsingStage.firstChunkLines
        var readError: Error?
        do {
            try reader.forEachLine { line in
                if line.number <= skipThrough { return }
                var item = classify(line)
                if item.kind == .event {
                    // Move the event's bytes (the record and the builder's arena) into the chunk.
                    let source = format.spanned?.bytes ?? line.bytes
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
            item.hash = LineHash.hash(open.bytes.withUnsafeBufferPointer { $0 })
            item.hash.1 ^= Int64(open.line)
            chunk.items.append(item)
        }
        chunk.consumed = file.consumed
        _ = queue.push(chunk)
        queue.close()
        return readError
    }

    func send(_ chunk: inout ParsedChunk, minimum: Int) throws {
        chunk.consumed = file.consumed
        guard queue.push(chunk) else { throw Cancelled() }
        chunk = pool.take(capacity: minimum)
    }

    /// Everything the single-threaded ingest did per line, except writing.
    func classify(_ line: Line) -> ParsedItem {
        var item = ParsedItem(kind: .blank)
        item.lineNumber = line.number
        item.recordLine = line.number
        item.endOffset = line.endOffset
        func reject(_ reason: String) -> ParsedItem {
            var r = item
            r.kind = .reject
            r.reason = reason
            r.text = Redactor.redact(String(decoding: ByteSlice(rebasing: line.bytes.prefix(512)), as: UTF8.self))
            r.hash = LineHash.hash(line.bytes)
            if line.oversized { r.hash.0 ^= line.endOffset }
            return r
        }
        if line.oversized { return reject("line longer than 1 MiB") }
        let b = line.bytes
        if b.isEmpty || isBlank(b) { return item }
        if !UTF8Check.isValid(b) { return reject("invalid UTF-8") }
        if memchr(b.baseAddress!, 0, b.count) != nil { return reject("NUL byte in line") }
        switch format.parse(b, number: line.number) {
        case .event:
            item.kind = .event
            item.event = builder.event
            let (bytes, number) = format.spanned ?? (b, line.number)
            item.hash = LineHash.hash(bytes)
            item.recordLine = number
        case .reject(let reason): return reject(reason)
        case .skip: item.kind = .skip
        case .ignore: item.kind = .ignore
        case .pending: item.kind = .pending
        case .metric(let day, let pushType, let status, let count):
            item.kind = .metric
            item.metric = (day, pushType, status, count)
        }
        return item
    }

    func isBlank(_ b: ByteSlice) -> Bool {
        for c in b where c != 0x20 && c != 0x09 && c != 0x0D { return false }
        return true
    }
}
