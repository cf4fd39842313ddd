import Foundation

/// One file opened for reading: its lines from where the resume plan starts, and the format
/// (and syslog prefix) that reads them.
struct OpenedStream {
    let file: FileByteSource
    let reader: LineReader
    let format: LineFormat
    let prefix: SyslogPrefix?
    /// Lines to read past before parsing (a resumed gzip stream cannot seek; 0 otherwise).
    let skipThrough: Int
}

extension Ingester {
    /// Opens the stream (gzip by magic bytes, a plain file seeked to the resume offset) and
    /// detects the format from the first lines; nil when the file is refused whole.
    func openStream(
        _ f: InputFile, _ plan: ResumePlan, _ st: (size: Int64, mtime: Int64)?, headLen: Int, head: String?,
        _ fs: inout FileSummary
    ) throws -> OpenedStream? {
        let file = f.isStdin ? FileByteSource(fd: 0, name: "stdin") : try FileByteSource(path: f.path)
        var magic = [UInt8](repeating: 0, count: 2)
        let got = try magic.withUnsafeMutableBufferPointer { try file.read(into: $0.baseAddress!, count: 2) }
        file.unread(Array(magic[0..<got]))
        let gzip = got == 2 && magic[0] == 0x1f && magic[1] == 0x8b
        var plainSkip = false
        if !gzip && plan.offset > 0 && !f.isStdin {
            try file.seek(to: plan.offset)
            plainSkip = true
        }
        let stream: ByteSource = gzip ? try GzipByteSource(input: file) : file
        let peek = PeekingSource(stream, limit: Ingester.headBytes)
        // Not a text log (binary magic, NUL bytes), or no known format in its first lines: refused
        // whole with one line saying why, not stored line by line as rejects.
        if let why = BinarySniffer.refusal(peek.head, magicOnly: options.inputFormat != nil) {
            try refuse(plan.sourceID, why, st, headLen, head, &fs)
            fs.unchanged = why == plan.refusedBefore
            return nil
        }
        let format: LineFormat
        var prefix: SyslogPrefix?
        let detect = {
            FormatDetector.detect(
                peek.head, builder: self.builder, library: self.options.formats, mtimeMs: (st?.mtime ?? 0) / 1_000_000,
                complete: peek.head.count < Ingester.headBytes)
        }
        if let forced = options.inputFormat {
            guard let fmt = FormatDetector.make(forced, builder: builder, library: options.formats) else {
                throw IngestError.unknownInputFormat(file: f.path, name: forced.name)
            }
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
                try refuse(plan.sourceID, why, st, headLen, head, &fs)
                fs.unchanged = why == plan.refusedBefore  // refused as before: nothing to say again
                return nil
            }
        }
        fs.format = format.name
        fs.resumedAfterLine = plan.lines
        let reader = LineReader(source: peek, startOffset: plainSkip ? plan.offset : 0, startLine: plainSkip ? plan.lines : 0)
        return OpenedStream(file: file, reader: reader, format: format, prefix: prefix, skipThrough: plainSkip ? 0 : plan.lines)
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
        refuseSource.bind(1, src)
        refuseSource.bind(2, why)
        refuseSource.bindInt(3, st?.size)
        refuseSource.bindInt(4, st?.mtime)
        refuseSource.bind(5, Int64(headLen))
        refuseSource.bind(6, head)
        try refuseSource.run()
        try db.commitUnit()
    }
}
