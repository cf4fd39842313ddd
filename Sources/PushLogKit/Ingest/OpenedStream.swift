import Foundation

/// One file opened for reading: its lines from where the resume plan starts, and the format
/// (and syslog prefix) that reads them.
struct OpenedStream {
    let file: FileByteSource
    let reader: LineReader
    let format: LineFormat
    let prefix: SyslogPrefix?
    /// Lines read before parsing resumes (a resumed read starts earlier: a gzip stream cannot
    /// seek, and a plain file is read from the occurrence window before its resume point).
    let skipThrough: Int
    /// The hash of the file's first line (its rejects' context).
    let context: (Int64, Int64)
    /// A second reader of the same format, for the lines replayed before the resume point.
    let warmUp: LineFormat?
    /// The runs of repeats open at the resume point, as the last read committed them.
    var openRuns: [OccurrenceCounter.Run] = []
}

extension Ingester {
    /// Opens the stream and detects the format (`OpenedStream.open`); nil when the file is
    /// refused whole, which its source row then says.
    func openStream(
        _ f: InputFile, _ plan: ResumePlan, _ st: (size: Int64, mtime: Int64)?, headLen: Int, head: String?,
        _ fs: inout FileSummary
    ) throws -> OpenedStream? {
        switch try OpenedStream.open(f, offset: plan.offset, lines: plan.lines, st, options: options, &fs) {
        case .opened(var opened):
            opened.openRuns = plan.openRuns
            return opened
        case .refused(let why):
            try refuse(plan.sourceID, why, st, headLen, head, &fs)
            fs.unchanged = why == plan.refusedBefore  // refused as before: nothing to say again
            return nil
        }
    }
}

extension OpenedStream {
    /// A file opened for reading, or why it is refused whole.
    enum Opening {
        case opened(OpenedStream)
        /// Not a text log, or no known format in its first lines (the reason as `refuse` stores it, unredacted).
        case refused(String)
    }

    /// Opens the stream (gzip by magic bytes, a plain file seeked to the resume position `offset`
    /// after `lines` lines) and detects the format from the first lines. `fs.format` names the
    /// format an earlier read found (a resumed plain file keeps it); it is set to the one used.
    static func open(
        _ f: InputFile, offset: Int64, lines: Int, _ st: (size: Int64, mtime: Int64)?, options: IngestOptions, _ fs: inout FileSummary
    ) throws -> Opening {
        let file =
            f.isStdin
            ? FileByteSource(fd: 0, name: "stdin", stop: options.stop)
            : try FileByteSource(path: f.path, stream: f.isStream, stop: options.stop)
        var magic = [UInt8](repeating: 0, count: 2)
        let got = try magic.withUnsafeMutableBufferPointer { try file.read(into: $0.baseAddress!, count: 2) }
        file.unread(Array(magic[0..<got]))
        let gzip = got == 2 && magic[0] == 0x1f && magic[1] == 0x8b
        var plainSkip = false
        var start = (offset: offset, line: lines)
        if !gzip && offset > 0 && !f.isStream {
            let back = Ingester.lookback(f.path, offset: offset)
            start = (back.offset, lines - back.lines)
            try file.seek(to: start.offset)
            plainSkip = true
        }
        let stream: ByteSource = gzip ? try GzipByteSource(input: file) : file
        let peek = PeekingSource(stream, limit: Ingester.headBytes)
        // Not a text log (binary magic, NUL bytes), or no known format in its first lines: refused
        // whole with one line saying why, not stored line by line as rejects.
        if let why = BinarySniffer.refusal(peek.head, magicOnly: options.inputFormat != nil) { return .refused(why) }
        let format: LineFormat
        var prefix: SyslogPrefix?
        let detect = {
            FormatDetector.detect(
                peek.head, library: options.formats, mtimeMs: (st?.mtime ?? 0) / 1_000_000,
                complete: peek.head.count < Ingester.headBytes)
        }
        if let forced = options.inputFormat {
            guard let fmt = FormatDetector.make(forced, library: options.formats) else {
                throw IngestError.unknownInputFormat(file: f.path, name: forced.name)
            }
            format = fmt
            prefix = FormatDetector.prefix(
                for: fmt, peek.head, library: options.formats, mtimeMs: (st?.mtime ?? 0) / 1_000_000,
                complete: peek.head.count < Ingester.headBytes)
        } else if plainSkip, let known = FormatDetector.make(fs.format, library: options.formats) {
            format = known
            if case .format(_, let p) = detect() { prefix = p }
        } else {
            switch detect() {
            case .format(let fmt, let p):
                format = fmt
                prefix = p
            case .refused(let why):
                return .refused(why)
            }
        }
        fs.format = format.name
        fs.resumedAfterLine = lines
        let reader = LineReader(
            source: peek, startOffset: plainSkip ? start.offset : 0, startLine: plainSkip ? start.line : 0, stop: options.stop,
            file: gzip ? file : nil)
        let context = plainSkip ? Ingester.firstLineHash(path: f.path) : Ingester.firstLineHash(peek.head)
        let warmUp =
            lines > 0 ? FormatDetector.make(InputFormat(format.name, library: options.formats), library: options.formats) : nil
        return .opened(
            OpenedStream(file: file, reader: reader, format: format, prefix: prefix, skipThrough: lines, context: context, warmUp: warmUp))
    }
}

extension Ingester {

    /// The hash of the first line in `head` (without its ending): a file's context for its rejects.
    static func firstLineHash(_ head: [UInt8]) -> (Int64, Int64) {
        var line = head.prefix { $0 != 0x0A }
        if line.last == 0x0D { line = line.dropLast() }
        return Array(line).withUnsafeBufferPointer { LineHash.hash($0) }
    }

    static func firstLineHash(path: String) -> (Int64, Int64) {
        guard let fh = FileHandle(forReadingAtPath: path) else { return (0, 0) }
        defer { try? fh.close() }
        let data = (try? fh.read(upToCount: LineReader.maxLineBytes)) ?? Data()
        return firstLineHash([UInt8](data))
    }

    /// Where a resumed read of a plain file starts so that it first replays the occurrence window
    /// (at most its lines, within its bytes plus one longest line) before `offset`: the start of the
    /// earliest whole line in reach, and how many lines lie between it and `offset`.
    static func lookback(_ path: String, offset: Int64) -> (offset: Int64, lines: Int) {
        let from = max(0, offset - OccurrenceCounter.windowBytes - Int64(LineReader.maxLineBytes) - 2)
        guard let fh = FileHandle(forReadingAtPath: path) else { return (offset, 0) }
        defer { try? fh.close() }
        guard (try? fh.seek(toOffset: UInt64(from))) != nil, let data = try? fh.read(upToCount: Int(offset - from)),
            data.count == Int(offset - from)
        else { return (offset, 0) }
        return data.withUnsafeBytes { raw -> (Int64, Int) in
            let b = raw.bindMemory(to: UInt8.self)
            guard let last = b.indices.last, b[last] == 0x0A else { return (offset, 0) }
            var lines = 0, start = b.count, i = last - 1
            while i >= 0 && lines < OccurrenceCounter.windowLines {
                if b[i] == 0x0A { lines += 1; start = i + 1 }
                i -= 1
            }
            if i < 0 && from == 0 && lines < OccurrenceCounter.windowLines { lines += 1; start = 0 }
            return (from + Int64(start), lines)
        }
    }

    /// Marks a file refused (not a text log, or no known format): no records, the reason kept, and
    /// its fingerprint, so an unchanged refused file is not read again.
    func refuse(
        _ src: Int64, _ reason: String, _ st: (size: Int64, mtime: Int64)?, _ headLen: Int, _ head: String?, _ fs: inout FileSummary
    ) throws {
        // The reason quotes the file's first line: secrets go as they do from rejected lines.
        let why = Redactor.redact(reason)
        fs.refused = why
        fs.format = Ingester.refusedFormat
        try db.beginUnit()
        try sources.refused(src, reason: why, stat: st, headLength: headLen, headHash: head)
        try db.commitUnit()
    }
}
