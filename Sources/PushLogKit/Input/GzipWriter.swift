import CZlib
import Foundation

/// Writes a gzip file with zlib, streaming (the demo corpus, tests).
final class GzipWriter {
    private var stream = z_stream()
    private let fd: Int32
    private let out: UnsafeMutablePointer<UInt8>
    private let outCap = 1 << 18
    private var pending: [UInt8] = []

    init(path: String, level: Int32 = 6) throws {
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        if fd < 0 { throw InputError.unreadable(path, String(cString: strerror(errno))) }
        out = .allocate(capacity: outCap)
        if pushlog_deflate_init_gzip(&stream, level) != Z_OK { throw InputError.corruptGzip("deflateInit failed") }
        pending.reserveCapacity(1 << 20)
    }

    deinit {
        deflateEnd(&stream)
        out.deallocate()
        close(fd)
    }

    /// Buffers text; compressed in 1 MiB steps.
    func write(_ s: String) {
        var s = s
        s.withUTF8 { pending.append(contentsOf: $0) }
        if pending.count >= 1 << 20 { flush(finish: false) }
    }

    func write(bytes: [UInt8]) {
        pending.append(contentsOf: bytes)
        if pending.count >= 1 << 20 { flush(finish: false) }
    }

    /// Ends the gzip member.
    func finish() { flush(finish: true) }

    private func flush(finish: Bool) {
        pending.withUnsafeMutableBufferPointer { buf in
            stream.next_in = buf.baseAddress
            stream.avail_in = UInt32(buf.count)
            repeat {
                stream.next_out = out
                stream.avail_out = UInt32(outCap)
                deflate(&stream, finish ? Z_FINISH : Z_NO_FLUSH)
                let n = outCap - Int(stream.avail_out)
                var off = 0
                while off < n {
                    let w = Foundation.write(fd, out + off, n - off)
                    if w <= 0 { break }
                    off += w
                }
            } while stream.avail_out == 0 || (finish && stream.avail_in > 0)
        }
        pending.removeAll(keepingCapacity: true)
    }

    /// Compresses bytes in memory into one gzip member.
    static func compress(_ bytes: [UInt8], level: Int32 = 6) throws -> [UInt8] {
        var s = z_stream()
        guard pushlog_deflate_init_gzip(&s, level) == Z_OK else { throw InputError.corruptGzip("deflateInit failed") }
        defer { deflateEnd(&s) }
        var input = bytes
        var result: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 1 << 16)
        try input.withUnsafeMutableBufferPointer { inp in
            s.next_in = inp.baseAddress
            s.avail_in = UInt32(inp.count)
            var rc: Int32 = Z_OK
            repeat {
                rc = buf.withUnsafeMutableBufferPointer { o -> Int32 in
                    s.next_out = o.baseAddress
                    s.avail_out = UInt32(o.count)
                    return deflate(&s, Z_FINISH)
                }
                if rc == Z_STREAM_ERROR { throw InputError.corruptGzip("deflate failed") }
                result.append(contentsOf: buf[0..<(buf.count - Int(s.avail_out))])
            } while rc != Z_STREAM_END
        }
        return result
    }
}
