import Foundation

/// The input side of ingest alone: open, inflate, detect, split, parse and hash every line on the
/// parsing thread exactly as ingest does, and drop the parsed chunks instead of writing them. The
/// rate no ingest or export can beat (`pushlog export --parse-only`, BENCHMARKS.md).
public enum ParseOnly {
    /// Lines read, records parsed and the wall seconds.
    public struct Result { public var lines = 0, records = 0; public var seconds = 0.0 }

    public static func run(paths: [String], inputFormat: String? = nil, library: FormatLibrary = IngestOptions().formats) throws -> Result {
        let started = Date()
        var problems: [String] = []
        var result = Result()
        let pool = ChunkPool(limit: 6)
        for f in SourcePaths.unique(FileWalker.expand(paths, problems: &problems)) {
            let file = f.isStdin ? FileByteSource(fd: 0, name: "stdin") : try FileByteSource(path: f.path)
            var magic = [UInt8](repeating: 0, count: 2)
            let got = try magic.withUnsafeMutableBufferPointer { try file.read(into: $0.baseAddress!, count: 2) }
            file.unread(Array(magic[0..<got]))
            let stream: ByteSource = got == 2 && magic[0] == 0x1f && magic[1] == 0x8b ? try GzipByteSource(input: file) : file
            let peek = PeekingSource(stream, limit: Ingester.headBytes)
            // Refused files (not text, no known format) are skipped, as ingest refuses them.
            if BinarySniffer.refusal(peek.head, magicOnly: inputFormat != nil) != nil { continue }
            let format: LineFormat
            var prefix: SyslogPrefix?
            if let forced = inputFormat {
                guard let fmt = FormatDetector.make(forced, library: library) else { continue }
                format = fmt
            } else {
                let mtime = (f.isStdin ? 0 : Ingester.fileInfo(f.path)?.mtime ?? 0) / 1_000_000
                guard
                    case .format(let fmt, let p) = FormatDetector.detect(
                        peek.head, library: library, mtimeMs: mtime,
                        complete: peek.head.count < Ingester.headBytes)
                else { continue }
                format = fmt
                prefix = p
            }
            let queue = ChunkQueue(capacity: 4)
            let handOver = ParsingStageHandOver(
                stage: ParsingStage(
                    reader: LineReader(source: peek),
                    sink: ChunkSink(format: format, prefix: prefix, file: file, queue: queue, pool: pool), skipThrough: 0))
            let done = DispatchSemaphore(value: 0)
            let thread = Thread {
                _ = handOver.stage.run(); done.signal()
            }
            thread.stackSize = 8 << 20
            thread.start()
            while let chunk = queue.pop() {
                result.lines += chunk.items.count
                result.records += chunk.items.reduce(0) { $0 + ($1.kind == .event ? 1 : 0) }
                pool.give(chunk)
            }
            done.wait()
        }
        pool.drain()
        result.seconds = Date().timeIntervalSince(started)
        return result
    }
}
