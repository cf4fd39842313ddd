import CZlib
import Foundation

/// Inflates a gzip stream, including several members one after another (logrotate, `cat a.gz b.gz`).
final class GzipByteSource: ByteSource {
    private let input: ByteSource
    private var stream = z_stream()
    private let inBuffer: UnsafeMutablePointer<UInt8>
    private let inCapacity = 1 << 18
    private var inputEnded = false
    private var memberEnded = false
    private var finished = false
    private let maxRatio: Double
    private let slack: Int64
    /// Compressed bytes fed to zlib so far.
    private(set) var compressedIn: Int64 = 0
    /// Bytes produced so far.
    private(set) var produced: Int64 = 0

    /// `maxRatio` stops a stream whose output grows past that multiple of its input plus `slack`
    /// bytes (a gzip bomb); real logs compress 5–20:1. At 200:1 a 10 MB file inflates to at most
    /// 2 GB, read in seconds; deflate's limit (1032:1) would be 10 GB and minutes.
    init(input: ByteSource, maxRatio: Double = 200, slack: Int64 = 64 << 20) throws {
        self.input = input
        self.maxRatio = maxRatio
        self.slack = slack
        inBuffer = .allocate(capacity: inCapacity)
        let rc = pushlog_inflate_init_gzip(&stream)
        if rc != Z_OK { throw InputError.corruptGzip("inflateInit failed: \(rc)") }
    }

    deinit {
        inflateEnd(&stream)
        inBuffer.deallocate()
    }

    private func refill() throws {
        let n = try input.read(into: inBuffer, count: inCapacity)
        if n == 0 { inputEnded = true }
        stream.next_in = inBuffer
        stream.avail_in = UInt32(n)
        compressedIn += Int64(n)
    }

    func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
        if finished { return 0 }
        while true {
            if stream.avail_in == 0 && !inputEnded { try refill() }
            if memberEnded {
                // Skip zero padding some writers append; anything else must be another member.
                while true {
                    while stream.avail_in > 0 && stream.next_in.pointee == 0 {
                        stream.next_in += 1
                        stream.avail_in -= 1
                    }
                    if stream.avail_in > 0 || inputEnded { break }
                    try refill()
                }
                if stream.avail_in == 0 && inputEnded { finished = true; return 0 }
                if stream.next_in.pointee != 0x1f { throw InputError.corruptGzip("trailing bytes after gzip member are not gzip") }
                inflateReset(&stream)
                memberEnded = false
            }
            stream.next_out = buffer
            stream.avail_out = UInt32(count)
            let rc = inflate(&stream, Z_NO_FLUSH)
            let n = count - Int(stream.avail_out)
            produced += Int64(n)
            switch rc {
            case Z_STREAM_END:
                memberEnded = true
            case Z_OK:
                break
            case Z_BUF_ERROR:
                if inputEnded && stream.avail_in == 0 {
                    if n > 0 { return n }
                    throw InputError.truncatedGzip
                }
            case Z_DATA_ERROR:
                let msg = stream.msg.map { String(cString: $0) } ?? "data error"
                if n > 0 { return n }  // the next call meets the error again, with nothing left to give
                throw InputError.corruptGzip(msg)
            default:
                throw InputError.corruptGzip("zlib error \(rc)")
            }
            if Double(produced) > Double(compressedIn) * maxRatio + Double(slack) {
                throw InputError.ratioExceeded(maxRatio)
            }
            if n > 0 { return n }
            if inputEnded && stream.avail_in == 0 && !memberEnded { throw InputError.truncatedGzip }
        }
    }
}
