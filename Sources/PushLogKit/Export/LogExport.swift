import Foundation

/// `export PATH...`: the inputs are read exactly as `ingest` reads them (formats, detection, gzip,
/// identity, rejects) and each parsed record is encoded as it comes (`RecordRows`): no database in
/// between, parsing on one thread and encoding on the other. A record repeated within a file is
/// dropped as ingest drops it; a record repeated in another file (a rotated copy) is written again
/// and collapses in ClickHouse's `records` (its key holds the identity). Split responses are
/// exported as logged (ClickHouse joins them). Rows come in file order, each file's in line order.
public struct LogExport {
    public var options = IngestOptions()
    public init() {}

    /// The ingest summary, the rows written and the rejected lines (path, line, reason).
    public struct Result {
        public var summary: IngestSummary
        public var rows: Int
        public var rejects: [(path: String, line: Int64, reason: String)]
        public var rejectCount: Int
    }

    /// Rejected lines listed in the result at most (the count covers them all).
    static let listedRejects = 20

    public func run(paths: [String], since: Int64?, until: Int64?, into sink: ExportSink) throws -> Result {
        let started = Date()
        var problems: [String] = []
        let files = SourcePaths.unique(FileWalker.expand(paths, problems: &problems))
        var summary = IngestSummary()
        summary.problems = problems
        let rows = RecordRows(format: sink.encoder.format)
        rows.since = since ?? Int64.min
        rows.until = until ?? Int64.max
        let pool = ChunkPool(limit: 6)
        var written = 0
        var listed: [(path: String, line: Int64, reason: String)] = []
        var rejectCount = 0
        var row: [UInt8] = []
        row.reserveCapacity(4096)
        for f in files {
            var fs = FileSummary(path: f.path)
            let fileStarted = Date()
            do {
                let st = Ingester.fileInfo(f.path)
                if !f.isStdin && st == nil { throw IngestError.cannotStat(file: f.path) }
                switch try OpenedStream.open(f, offset: 0, lines: 0, st, options: options, &fs) {
                case .refused(let why):
                    fs.refused = Redactor.redact(why)
                    fs.format = Ingester.refusedFormat
                case .opened(let opened):
                    rows.start(path: f.path)
                    let (bytes, readError, _) = try ParsedFile.read(opened, pool: pool) { chunk in
                        try chunk.items.withUnsafeBufferPointer { items in
                            for i in items.indices {
                                row.removeAll(keepingCapacity: true)
                                guard rows.take(items[i], into: &row) else { continue }
                                try sink.write(encoded: row, timeMs: items[i].event.time!)
                                written += 1
                            }
                        }
                        // Only the first lines are listed: memory stays flat however many are rejected.
                        if rows.rejects.count > 1000 {
                            rows.rejects = Array(rows.rejects.sorted(by: { $0.line < $1.line }).prefix(LogExport.listedRejects))
                        }
                    }
                    rows.summarize(into: &fs)
                    fs.bytes = bytes
                    if let readError {
                        fs.complete = false
                        fs.error = "\(readError)"
                    }
                    rejectCount += rows.counts.rejects
                    for r in rows.rejects.sorted(by: { $0.line < $1.line }).prefix(LogExport.listedRejects - listed.count) {
                        listed.append((f.path, Int64(r.line), r.reason))
                    }
                    rows.rejects = []
                }
            } catch let e as ExportError {
                throw e  // the output failed: nothing more can be written
            } catch {
                fs.complete = false
                fs.error = "\(error)"
            }
            fs.seconds = Date().timeIntervalSince(fileStarted)
            if let why = fs.refused, f.named { summary.problems.append("\(f.path): \(why)") }
            summary.files.append(fs)
        }
        try sink.finish()
        pool.drain()
        summary.seconds = Date().timeIntervalSince(started)
        return Result(summary: summary, rows: written, rejects: listed, rejectCount: rejectCount)
    }
}
