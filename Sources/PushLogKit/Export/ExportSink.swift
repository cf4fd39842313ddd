import Foundation

/// Where exported rows go: a stream (stdout) or gzipped files partitioned by day.
public protocol ExportSink: AnyObject {
    /// Writes rows in the sink's format (RecordDump gives it the source paths).
    var encoder: RowEncoder { get }
    /// Writes the statement's current row.
    func write(_ row: Statement) throws
    /// Writes a row already encoded in the sink's format (`RecordRows`) of a record at `timeMs`.
    func write(encoded row: [UInt8], timeMs: Int64) throws
    /// Flushes and closes everything.
    func finish() throws
}

/// Rows to a file descriptor (stdout), buffered in 1 MiB writes.
public final class StreamSink: ExportSink {
    let fd: Int32
    public let encoder: RowEncoder
    var buffer: [UInt8] = []

    public init(fd: Int32 = 1, format: ExportFormat) {
        self.fd = fd
        encoder = RowEncoder(format: format)
        buffer.reserveCapacity(1 << 20 + 4096)
        buffer += format.header()
    }

    public func write(_ row: Statement) throws {
        encoder.append(row, to: &buffer)
        if buffer.count >= 1 << 20 { try flush() }
    }

    public func write(encoded row: [UInt8], timeMs: Int64) throws {
        buffer += row
        if buffer.count >= 1 << 20 { try flush() }
    }

    public func finish() throws { try flush() }

    func flush() throws {
        try buffer.withUnsafeBytes { raw in
            var off = 0
            while off < raw.count {
                let n = Foundation.write(fd, raw.baseAddress! + off, raw.count - off)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw ExportError("cannot write the export: \(String(cString: strerror(errno)))")
                }
                off += n
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

/// Rows into `DIR/day=YYYY-MM-DD/part-NNNN.EXT.gz`, one gzip file per UTC day of the record's time
/// (Hive-style partitions, as object storage and ClickHouse's `s3()`/`file()` globs read them). A
/// part number already taken in a day's folder is skipped, so a second export adds files and never
/// overwrites one.
public final class DayPartitionSink: ExportSink {
    let dir: String
    let format: ExportFormat
    public let encoder: RowEncoder
    var open: [Int64: GzipWriter] = [:]
    var lastUse: [Int64: Int] = [:]
    var uses = 0
    /// Open files at most (each holds about 1.3 MB of buffers): memory stays flat over any number
    /// of days; a day met again after its file was closed gets the next part.
    static let maxOpen = 8
    var scratch: [UInt8] = []
    /// The files written, in the order they were opened.
    private(set) var files: [String] = []

    public init(directory: String, format: ExportFormat) throws {
        dir = directory
        self.format = format
        encoder = RowEncoder(format: format)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    public func write(_ row: Statement) throws {
        let day = TimeFormat.floorDiv(row.int(1), 86_400_000)  // column 1 is time_ms
        let w = try writer(day)
        scratch.removeAll(keepingCapacity: true)
        encoder.append(row, to: &scratch)
        w.write(bytes: scratch)
    }

    public func write(encoded row: [UInt8], timeMs: Int64) throws {
        try writer(TimeFormat.floorDiv(timeMs, 86_400_000)).write(bytes: row)
    }

    public func finish() throws {
        for (_, w) in open { w.finish() }
        open.removeAll()
    }

    func writer(_ day: Int64) throws -> GzipWriter {
        uses += 1
        lastUse[day] = uses
        if let w = open[day] { return w }
        if open.count >= DayPartitionSink.maxOpen, let oldest = open.keys.min(by: { lastUse[$0]! < lastUse[$1]! }) {
            open.removeValue(forKey: oldest)?.finish()
        }
        let folder = dir + "/day=" + String(TimeFormat.rfc3339(ms: day * 86_400_000).prefix(10))
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var part = 1
        var path: String
        repeat {
            path = folder + "/part-" + String(format: "%04d", part) + "." + format.fileExtension + ".gz"
            part += 1
        } while FileManager.default.fileExists(atPath: path)
        let w = try GzipWriter(path: path, level: 1)
        let header = format.header()
        if !header.isEmpty { w.write(bytes: header) }
        open[day] = w
        files.append(path)
        return w
    }
}

/// An export that cannot go on (a write failed).
struct ExportError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}
