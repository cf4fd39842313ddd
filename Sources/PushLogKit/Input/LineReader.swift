import Foundation

/// One line of input, valid only during the callback that receives it.
struct Line {
    /// The line's bytes without its ending; for an oversized line, only its first bytes.
    let bytes: UnsafeBufferPointer<UInt8>
    /// 1-based line number in the (decompressed) stream.
    let number: Int
    /// Offset in the decompressed stream just after this line's ending.
    let endOffset: Int64
    /// True when the line was longer than the limit; `bytes` then holds its prefix.
    let oversized: Bool
}

/// Splits a byte stream into lines (LF or CRLF) without copying them, with a bounded buffer.
/// Blank lines (nothing but spaces, tabs and CRs) are counted, never given.
final class LineReader {
    static let maxLineBytes = 1 << 20
    static let prefixBytes = 512

    private let source: ByteSource
    private let capacity: Int
    private let buffer: UnsafeMutablePointer<UInt8>
    private var lineNumber: Int
    private var baseOffset: Int64  // stream offset of buffer[0]
    private let stop: StopRequest?
    /// The file under a gzip stream, whose bytes read bound the lines given (`bytesPerLine`).
    private let file: FileByteSource?
    /// Lines given so far (blank lines are not).
    private var given = 0

    /// A gzip stream may give a line per two bytes read from its file, plus two million: real
    /// logs take 10 to 50 compressed bytes a line, and junk that takes less (one line repeated,
    /// which deflate packs 1000:1) would cost microseconds a line for hours. A 10 MB file gives at
    /// most 7 million lines; two million identical junk lines in 100 KB are still all counted.
    static let bytesPerLine = 2
    static let lineSlack = 2_000_000

    /// `startOffset`/`startLine` say where in the stream `source` begins (resumed reads).
    /// `stop` ends the read between two reads of the source (a gzip source produces up to its
    /// ratio limit per read of the file, which it checks).
    /// `file`: the file `source` reads through a gzip stream, whose size bounds the lines given.
    init(source: ByteSource, startOffset: Int64 = 0, startLine: Int = 0, stop: StopRequest? = nil, file: FileByteSource? = nil) {
        self.stop = stop
        self.file = file
        self.source = source
        capacity = LineReader.maxLineBytes + (4 << 20) + 2
        buffer = .allocate(capacity: capacity)
        lineNumber = startLine
        baseOffset = startOffset
    }

    deinit { buffer.deallocate() }

    /// The blank lines that start at `from`, before `end`: how many, and where the line after
    /// them starts. Eight newlines at a time where it can, so a file of nothing but newlines
    /// costs what inflating and scanning it costs, not a line's way through the parser each.
    @inline(__always)
    private func skipBlankLines(from: Int, to end: Int) -> (lines: Int, next: Int) {
        let newlines: UInt64 = 0x0A0A_0A0A_0A0A_0A0A
        var p = from, next = from, lines = 0
        while p < end {
            if p + 8 <= end && UnsafeRawPointer(buffer + p).loadUnaligned(as: UInt64.self) == newlines {
                p += 8
                lines += 8
                next = p
                continue
            }
            switch buffer[p] {
            case 0x0A:
                p += 1
                lines += 1
                next = p
            case 0x20, 0x09, 0x0D: p += 1
            default: return (lines, next)
            }
        }
        return (lines, next)
    }

    /// Calls `body` for every line; a read error is thrown after every complete line before it was given.
    func forEachLine(_ body: (Line) throws -> Void) throws {
        var start = 0, end = 0, scan = 0
        var discarding = false  // inside an oversized line, dropping bytes until its end
        var eof = false
        // A UTF-8 byte-order mark (spreadsheet "CSV UTF-8" exports) is not part of the first line.
        var atStreamStart = lineNumber == 0 && baseOffset == 0
        while true {
            // Emit every complete line in [start, end).
            while scan < end {
                if scan == start && !discarding && buffer[start] <= 0x20 {
                    let (lines, next) = skipBlankLines(from: start, to: end)
                    if lines > 0 {
                        lineNumber += lines
                        atStreamStart = false
                        start = next
                        scan = next
                        continue
                    }
                }
                let remaining = end - scan
                guard let nlRaw = memchr(buffer + scan, 0x0A, remaining) else { scan = end; break }
                let nl = nlRaw.assumingMemoryBound(to: UInt8.self) - buffer
                lineNumber += 1
                if discarding {
                    discarding = false
                } else if buffer[start] <= 0x20 && skipBlankLines(from: start, to: nl + 1).next == nl + 1 {
                    // A blank line whose bytes came in more than one read.
                } else {
                    var len = nl - start
                    if len > 0 && buffer[start + len - 1] == 0x0D { len -= 1 }
                    var from = start
                    if atStreamStart && len >= 3 && buffer[start] == 0xEF && buffer[start + 1] == 0xBB && buffer[start + 2] == 0xBF {
                        from += 3
                        len -= 3
                    }
                    given += 1
                    if given & 0xFFF == 0, let file, given > Int(file.consumed) / LineReader.bytesPerLine + LineReader.lineSlack {
                        throw InputError.tooManyLines(lines: given, bytes: file.consumed)
                    }
                    let over = len > LineReader.maxLineBytes
                    let shown = over ? LineReader.prefixBytes : len
                    try body(
                        Line(
                            bytes: UnsafeBufferPointer(start: buffer + from, count: shown),
                            number: lineNumber, endOffset: baseOffset + Int64(nl + 1), oversized: over))
                }
                atStreamStart = false
                start = nl + 1
                scan = start
            }
            if eof { break }
            // An unfinished line longer than the limit: report it once, then drop bytes until its end.
            if !discarding && end - start > LineReader.maxLineBytes {
                try body(
                    Line(
                        bytes: UnsafeBufferPointer(start: buffer + start, count: LineReader.prefixBytes),
                        number: lineNumber + 1, endOffset: baseOffset + Int64(end), oversized: true))
                discarding = true
            }
            if discarding {
                baseOffset += Int64(end)
                start = 0; end = 0; scan = 0
            } else if start > 0 {
                let keep = end - start
                if keep > 0 { memmove(buffer, buffer + start, keep) }
                baseOffset += Int64(start)
                end = keep; scan = keep; start = 0
            }
            if let signal = stop?.signalNumber { throw InputError.interrupted(signal) }
            let n = try source.read(into: buffer + end, count: min(1 << 20, capacity - end - 1))
            if n == 0 {
                eof = true
                if end > start && !discarding {
                    // A last line without a newline.
                    buffer[end] = 0x0A
                    end += 1
                    baseOffset -= 1  // the synthetic newline is not in the stream
                }
                if discarding { lineNumber += 1 }
            } else {
                end += n
            }
        }
    }
}
