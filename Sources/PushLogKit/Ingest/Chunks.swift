import Foundation

/// A run of parsed lines and the bytes their events point into (owned, freed with the chunk).
final class ParsedChunk {
    let storage: UnsafeMutablePointer<UInt8>
    let capacity: Int
    var used = 0
    var items: [ParsedItem] = []
    /// Input bytes read so far (compressed size for gzip), for the progress display.
    var consumed: Int64 = 0

    init(capacity: Int) {
        self.capacity = capacity
        storage = .allocate(capacity: capacity)
        items.reserveCapacity(ParsingStage.chunkLines)
    }

    deinit { storage.deallocate() }

    /// Empties the chunk for reuse (keeps its buffers).
    func reset() {
        used = 0
        consumed = 0
        items.removeAll(keepingCapacity: true)
    }

    func copy(_ s: ByteSlice) -> UnsafeMutablePointer<UInt8> {
        let dst = storage + used
        if let p = s.baseAddress, s.count > 0 { dst.update(from: p, count: s.count) }
        used += s.count
        return dst
    }
}

/// Written chunks, handed back to the parser for reuse: the ~7 MB of buffers per chunk are
/// allocated a few times per run instead of once per 4,096 lines, which keeps the memory flat
/// (freed 4 MiB blocks otherwise linger in the allocator's per-thread arenas) and saves the page
/// faults of fresh memory.
final class ChunkPool {
    private let lock = NSLock()
    private var free: [ParsedChunk] = []
    let limit: Int

    init(limit: Int) { self.limit = limit }

    /// A chunk of at least `capacity` bytes, reused when one of the standard size is free.
    func take(capacity: Int) -> ParsedChunk {
        if capacity <= ParsingStage.chunkBytes {
            lock.lock()
            let c = free.popLast()
            lock.unlock()
            if let c { return c }
        }
        return ParsedChunk(capacity: max(capacity, ParsingStage.chunkBytes))
    }

    /// Frees every pooled chunk (after the last file, before the memory-hungry index builds).
    func drain() {
        lock.lock()
        free = []
        lock.unlock()
    }

    func give(_ c: ParsedChunk) {
        guard c.capacity == ParsingStage.chunkBytes else { return }
        c.reset()
        lock.lock()
        if free.count < limit { free.append(c) }
        lock.unlock()
    }
}

/// A bounded queue of chunks between the parsing thread and the writer (no unbounded buffering).
final class ChunkQueue {
    private let cond = NSCondition()
    private var chunks: [ParsedChunk] = []
    private var closed = false
    private(set) var cancelled = false
    let capacity: Int
    /// Seconds the writer waited for a chunk and the parser waited for room (when phases are timed).
    private(set) var writerWaited = 0.0, parserWaited = 0.0
    private let timed = PhaseTimer.enabled

    init(capacity: Int) { self.capacity = capacity }

    /// Blocks while full; false when the writer gave up.
    func push(_ c: ParsedChunk) -> Bool {
        cond.lock(); defer { cond.unlock() }
        let start = timed ? Date() : nil
        while chunks.count >= capacity && !cancelled { cond.wait() }
        if let start { parserWaited += Date().timeIntervalSince(start) }
        if cancelled { return false }
        chunks.append(c)
        cond.broadcast()
        return true
    }

    /// Blocks while empty; nil once closed and drained.
    func pop() -> ParsedChunk? {
        cond.lock(); defer { cond.unlock() }
        let start = timed ? Date() : nil
        while chunks.isEmpty && !closed { cond.wait() }
        if let start { writerWaited += Date().timeIntervalSince(start) }
        if chunks.isEmpty { return nil }
        let c = chunks.removeFirst()
        cond.broadcast()
        return c
    }

    func close() { cond.lock(); closed = true; cond.broadcast(); cond.unlock() }
    func cancel() { cond.lock(); cancelled = true; chunks.removeAll(); cond.broadcast(); cond.unlock() }
}
