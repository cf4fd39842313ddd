import Foundation

/// One opened file read through the parsing stage with no database behind it: the stage runs on
/// its own thread (as in `Pipeline`) and each chunk of parsed items is handed to the caller on
/// this one, in file order, then given back to the pool. What `export` and the ClickHouse ingest
/// read; the items are exactly those the SQLite ingest writes (identity, occurrences, rejects).
enum ParsedFile {
    /// Reads `opened` to its end, calling `each` with every chunk (its items and their bytes are
    /// valid during the call only). Returns the bytes read, the input error that ended the read
    /// early, if any, and the seconds each side waited for the other; an error `each` throws
    /// stops the parser and is rethrown.
    static func read(_ opened: OpenedStream, pool: ChunkPool, each: (ParsedChunk) throws -> Void) throws -> (
        bytes: Int64, readError: Error?, waits: (reader: Double, parser: Double)
    ) {
        let queue = ChunkQueue(capacity: 4)
        let sink = ChunkSink(
            format: opened.format, prefix: opened.prefix, file: opened.file, queue: queue, pool: pool, context: opened.context)
        var stage = ParsingStage(reader: opened.reader, sink: sink, skipThrough: opened.skipThrough)
        stage.openRuns = opened.openRuns
        if let format = opened.warmUp {
            stage.warmUp = ChunkSink(
                format: format, prefix: opened.prefix, occurrences: sink.occurrences, countOnly: true, file: opened.file,
                queue: queue, pool: pool)
        }
        let handOver = ParsingStageHandOver(stage: stage)
        let done = DispatchSemaphore(value: 0)
        let outcome = StageOutcome()
        let thread = Thread {
            outcome.readError = handOver.stage.run()
            done.signal()  // publishes readError to the waiting reader
        }
        thread.stackSize = 8 << 20
        thread.start()
        var bytes: Int64 = 0
        do {
            while let chunk = queue.pop() {
                try each(chunk)
                bytes = chunk.consumed
                pool.give(chunk)
            }
        } catch {
            queue.cancel()
            done.wait()
            throw error
        }
        done.wait()
        return (bytes, outcome.readError, (queue.writerWaited, queue.parserWaited))
    }
}
