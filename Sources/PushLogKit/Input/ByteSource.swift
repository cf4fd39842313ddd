import Foundation

/// Why a byte source stopped before its end.
enum InputError: Error, CustomStringConvertible {
    case unreadable(String, String)
    case corruptGzip(String)
    case truncatedGzip
    case ratioExceeded(Double)

    var description: String {
        switch self {
        case .unreadable(let path, let why): return "\(path): cannot read: \(why)"
        case .corruptGzip(let why): return "corrupt gzip data (\(why))"
        case .truncatedGzip: return "truncated gzip stream (file ends inside a member)"
        case .ratioExceeded(let r): return "decompression ratio above \(Int(r)):1, stopped (gzip bomb?)"
        }
    }
}

/// A stream of bytes: a plain file, stdin or a gzip stream on top of one.
protocol ByteSource: AnyObject {
    /// Reads up to `count` bytes; 0 means the end.
    func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int
}

/// Reads a file descriptor with read(2).
final class FileByteSource: ByteSource {
    let fd: Int32
    let ownsFD: Bool
    let path: String
    /// Bytes read from the descriptor so far (the compressed size for gzip input).
    private(set) var consumed: Int64 = 0
    /// Bytes put back by `unread`, returned before the descriptor is read again.
    private var pending: [UInt8] = []

    init(path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { throw InputError.unreadable(path, String(cString: strerror(errno))) }
        self.fd = fd
        self.ownsFD = true
        self.path = path
    }

    init(fd: Int32, name: String) {
        self.fd = fd
        self.ownsFD = false
        self.path = name
    }

    deinit { if ownsFD { close(fd) } }

    /// Moves to `offset` (plain files only).
    func seek(to offset: Int64) throws {
        if lseek(fd, off_t(offset), SEEK_SET) < 0 { throw InputError.unreadable(path, String(cString: strerror(errno))) }
        consumed = offset
        pending.removeAll()
    }

    /// Puts bytes back in front of the stream (used by format sniffing).
    func unread(_ bytes: [UInt8]) { pending = bytes + pending }

    func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int {
        if !pending.isEmpty {
            let n = min(count, pending.count)
            pending.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress!, count: n) }
            pending.removeFirst(n)
            return n
        }
        while true {
            let n = Foundation.read(fd, buffer, count)
            if n >= 0 { consumed += Int64(n); return n }
            if errno == EINTR { continue }
            throw InputError.unreadable(path, String(cString: strerror(errno)))
        }
    }
}
