import Foundation

/// The input side of ingest alone: open, inflate, detect, split, parse and hash every line on the
/// parsing thread exactly as ingest does, and drop the parsed chunks instead of writing them. The
/// rate no ingest or export can beat (`pushlog export --parse-only`, BENCHMARKS.md).
public enum ParseOnly {
    /// Lines read, records parsed and the wall seconds.
    public struct Result { public var lines = 0, records = 0; public var seconds = 0.0 }

    public static func run(paths: [String], inputFormat: String? = nil) throws -> Result {
        let started = Date()
        var problems: [String] = []
        var result = Result()
        let builder = EventBuilder()
        let pool = ChunkPool(limit: 6)
        for f in SourcePaths.unique(FileWalker.expand(paths, problems: &problems)) {
            let file = f.isStdin ? FileByteSource(fd: 0, name: "stdin") : try FileByteSource(path: f.path)
            var magic = [UInt8](repeating: 0, count: 2)
            let got = try magic.withUnsafeMutableBufferPointer { try file.read(into: $0.baseAddress!, count: 2) }
            file.unread(Array(magic[0..<got]))
            let stream: ByteSource = got == 2 && magic[0] == 0x1f && magic[1] == 0x8b ? try GzipByteSource(input: file) : file
            let peek = PeekingSource(stream)
            let format = inputFormat.flatMap { FormatDetector.make($0, builder: builder) } ?? FormatDetector.detect(peek.head, builder: builder)
            let queue = ChunkQueue(capacity: 4)
            let stage = ParsingStage(reader: LineReader(source: peek), format: format, builder: builder, file: file,
                                     skipThrough: 0, queue: queue, pool: pool)
            let done = DispatchSemaphore(value: 0)
            let thread = Thread { _ = stage.run(); done.signal() }
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
