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

    /// Ingests one file: plan where to start, open the stream, read it in batches, and record
    /// the fingerprint of what was read.
    func ingestFile(_ f: InputFile, _ fs: inout FileSummary, _ ticker: inout ProgressTicker) throws {
        let started = Date()
        defer { fs.seconds = Date().timeIntervalSince(started) }
        let st = Ingester.fileInfo(f.path)
        if !f.isStdin && st == nil { throw IngestError.cannotStat(file: f.path) }
        // A stream has no head to fingerprint: opening a FIFO twice would wait for a second writer.
        let headLen = f.isStream ? 0 : Int(min(st?.size ?? 0, 65536))
        let head = f.isStream ? nil : Ingester.headHash(f.path, length: headLen)

        guard let plan = try planResume(f, st, head: head, &fs) else { return }
        guard let opened = try openStream(f, plan, st, headLen: headLen, head: head, &fs) else { return }
        let (fileBytes, readError) = try pipeline.run(opened, plan, &fs, &ticker)
        if let readError {
            fs.complete = false
            fs.error = "\(readError)"
        }
        // Stopped by a signal: the source stays as its last batch left it, as after a kill, so the
        // next run reads it as it reads after a crash (CrashResumeTests hold that to be exact).
        if case .interrupted = readError as? InputError {
            fs.bytes = fileBytes
            return
        }
        // Mark the source complete (or not) with the fingerprint of what was read.
        try db.beginUnit()
        try sources.finished(plan.sourceID, complete: fs.complete, error: fs.error, stat: st, headLength: headLen, headHash: head)
        try db.commitUnit()
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
}
