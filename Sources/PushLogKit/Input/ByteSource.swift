import Foundation

/// Why a byte source stopped before its end.
enum InputError: Error, CustomStringConvertible {
    case unreadable(String, String)
    case corruptGzip(String)
    case truncatedGzip
    case ratioExceeded(Double)
    /// More lines than `LineReader.bytesPerLine` allows for the bytes read from the file: junk
    /// that compresses 1000:1 would take hours to parse.
    case tooManyLines(lines: Int, bytes: Int64)
    /// A signal asked the run to stop (`StopRequest`).
    case interrupted(Int32)

    var description: String {
        switch self {
        case .unreadable(let path, let why): return "\(path): cannot read: \(why)"
        case .corruptGzip(let why): return "corrupt gzip data (\(why))"
        case .truncatedGzip: return "truncated gzip stream (file ends inside a member)"
        case .ratioExceeded(let r): return "decompression ratio above \(Int(r)):1, stopped (gzip bomb?)"
        case .tooManyLines(let lines, let bytes):
            return "\(lines) lines from \(bytes) compressed bytes, more than a line per \(LineReader.bytesPerLine) bytes "
                + "(plus \(LineReader.lineSlack)): stopped, as no log compresses so well (junk repeated?)"
        case .interrupted(let signal): return "interrupted by \(InputError.name(signal))"
        }
    }
}

extension InputError {
    /// A signal's name as `kill -l` spells it.
    static func name(_ signal: Int32) -> String {
        switch signal {
        case SIGINT: return "SIGINT"
        case SIGTERM: return "SIGTERM"
        default: return "signal \(signal)"
        }
    }
}

/// A stream of bytes: a plain file, stdin or a gzip stream on top of one.
protocol ByteSource: AnyObject {
    /// Reads up to `count` bytes; 0 means the end.
    func read(into buffer: UnsafeMutablePointer<UInt8>, count: Int) throws -> Int
}

/// Reads a file descriptor with read(2). One that is not a regular file (a pipe, a FIFO, a
/// terminal) is polled before each read, a tenth of a second at a time, so that a `StopRequest`
/// ends a read that waits for a writer.
final class FileByteSource: ByteSource {
    let fd: Int32
    let ownsFD: Bool
    let path: String
    private let stop: StopRequest?
    private let waits: Bool
    /// Bytes read from the descriptor so far (the compressed size for gzip input).
    private(set) var consumed: Int64 = 0
    /// Bytes put back by `unread`, returned before the descriptor is read again.
    private var pending: [UInt8] = []

    /// `stream`: a FIFO or device named by the user, opened without waiting for a writer (the
    /// poll before each read waits instead, where a stop request can end it).
    init(path: String, stream: Bool = false, stop: StopRequest? = nil) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC | (stream ? O_NONBLOCK : 0))
        if fd < 0 { throw InputError.unreadable(path, String(cString: strerror(errno))) }
        self.fd = fd
        self.ownsFD = true
        self.path = path
        self.stop = stop
        waits = FileByteSource.mayWait(fd)
    }

    init(fd: Int32, name: String, stop: StopRequest? = nil) {
        self.fd = fd
        self.ownsFD = false
        self.path = name
        self.stop = stop
        waits = FileByteSource.mayWait(fd)
    }

    /// True unless `fd` is a regular file, whose reads never wait for a writer.
    private static func mayWait(_ fd: Int32) -> Bool {
        var st = stat()
        return fstat(fd, &st) != 0 || st.st_mode & S_IFMT != S_IFREG
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
            if let signal = stop?.signalNumber { throw InputError.interrupted(signal) }
            if waits {
                // A FIFO opened before any writer polls as not ready until one comes (Linux keeps
                // its hang-up for a writer that came and went), so this also waits for the first.
                var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let ready = poll(&p, 1, 100)
                if ready == 0 || ready < 0 && errno == EINTR { continue }
            }
            let n = Foundation.read(fd, buffer, count)
            if n >= 0 { consumed += Int64(n); return n }
            if errno == EINTR || errno == EAGAIN { continue }
            throw InputError.unreadable(path, String(cString: strerror(errno)))
        }
    }
}
