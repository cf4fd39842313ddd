/// Reads the first bytes of a stream for format detection, then replays them.
final class PeekingSource: ByteSource {
    private let inner: ByteSource
    private(set) var head: [UInt8] = []
    private var replayed = 0

    /// Reads up to `limit` bytes ahead; errors are kept for the first real read.
    init(_ inner: ByteSource, limit: Int = 64 * 1024) {
        self.inner = inner
        var buf = [UInt8](repeating: 0, count: limit)
        var got = 0
        do {
            while got < limit {
                let n = try buf.withUnsafeMutableBufferPointer { try inner.read(into: $0.baseAddress! + got, count: limit - got) }
                if n == 0 { break }
                got += n
            }
        } catch {
            pendingError = error
        }
        head = Array(buf[0..<got])
    }
    private var pendingError: Error?

    func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
        if replayed < head.count {
            let n = min(count, head.count - replayed)
            head.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress! + replayed, count: n) }
            replayed += n
            return n
        }
        if let e = pendingError { pendingError = nil; throw e }
        return try inner.read(into: buffer, count: count)
    }
}
