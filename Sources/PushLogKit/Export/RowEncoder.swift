import CSQLite

/// Writes the current row of a `RecordDump` statement in an export format. The statement gives the
/// identity raw (time_ms, line_hash, source_id); the encoder writes the line hash as 16 hex digits and the
/// source's path (looked up once per source, not per row), then every field. Numbers and escapes
/// are written straight into the output bytes: the dump runs at hundreds of thousands of rows/s.
public final class RowEncoder {
    let format: ExportFormat
    /// Path of each source id.
    var sources: [Int64: String] = [:] { didSet { encodedSources = [:] } }
    private var encodedSources: [Int64: [UInt8]] = [:]
    /// `"name":` for JSON, per output column.
    private let keys: [[UInt8]]
    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    init(format: ExportFormat) {
        self.format = format
        keys = RecordDump.columns.map { Array("\"\($0)\":".utf8) }
    }

    /// Appends the statement's current row, ending in a newline.
    func append(_ s: Statement, to out: inout [UInt8]) {
        let json = format == .jsonEachRow
        if json { out.append(UInt8(ascii: "{")) }
        // kind, time_ms
        column(0, s, 0, json, &out, first: true)
        separator(json, &out)
        if json { out.append(contentsOf: keys[1]) }
        Self.appendInt(s.int(1), &out)
        // line_hash: 16 hex digits (two's complement, as printf('%016x') gives).
        separator(json, &out)
        if json { out.append(contentsOf: keys[2]); out.append(UInt8(ascii: "\"")) }
        let v = UInt64(bitPattern: s.int(2))
        for shift in stride(from: 60, through: 0, by: -4) { out.append(Self.hex[Int((v >> UInt64(shift)) & 15)]) }
        if json { out.append(UInt8(ascii: "\"")) }
        // source: the path of source_id
        if s.isNull(3) {
            if !json { out.append(contentsOf: "\t\\N".utf8) }
        } else {
            separator(json, &out)
            if json { out.append(contentsOf: keys[3]) }
            out.append(contentsOf: encodedSource(s.int(3), json))
        }
        // line, then the fields: output column c is statement column c
        for c in 4..<RecordDump.columns.count {
            column(Int32(c), s, c, json, &out, first: false)
        }
        out.append(contentsOf: json ? [UInt8(ascii: "}"), 10] : [10])
    }

    @inline(__always) private func separator(_ json: Bool, _ out: inout [UInt8]) {
        out.append(json ? UInt8(ascii: ",") : UInt8(ascii: "\t"))
    }

    /// One field: JSON leaves NULLs out, TSV writes `\N`.
    private func column(_ i: Int32, _ s: Statement, _ c: Int, _ json: Bool, _ out: inout [UInt8], first: Bool) {
        let type = sqlite3_column_type(s.handle, i)
        if type == SQLITE_NULL {
            if !json { if !first { out.append(UInt8(ascii: "\t")) }; out.append(contentsOf: "\\N".utf8) }
            return
        }
        if !first { separator(json, &out) }
        if json { out.append(contentsOf: keys[c]) }
        switch type {
        case SQLITE_INTEGER: Self.appendInt(s.int(i), &out)
        case SQLITE_FLOAT: out.append(contentsOf: ExportFormat.number(s.double(i)).utf8)
        default:
            if json { ExportFormat.appendJSONString(s.bytes(i), &out) } else { Self.appendTSV(s.bytes(i), &out) }
        }
    }

    private func encodedSource(_ id: Int64, _ json: Bool) -> [UInt8] {
        if let e = encodedSources[id] { return e }
        let path = Array((sources[id] ?? "").utf8)
        var e: [UInt8] = []
        if json { ExportFormat.appendJSONString(path, &e) } else { Self.appendTSV(path, &e) }
        encodedSources[id] = e
        return e
    }

    /// Tab, newline, carriage return and backslash escaped, as ClickHouse's TSV reads them.
    static func appendTSV<C: Collection<UInt8>>(_ bytes: C, _ out: inout [UInt8]) {
        for b in bytes {
            switch b {
            case UInt8(ascii: "\\"): out.append(contentsOf: "\\\\".utf8)
            case UInt8(ascii: "\t"): out.append(contentsOf: "\\t".utf8)
            case UInt8(ascii: "\n"): out.append(contentsOf: "\\n".utf8)
            case UInt8(ascii: "\r"): out.append(contentsOf: "\\r".utf8)
            default: out.append(b)
            }
        }
    }

    /// Decimal digits without a String in between.
    static func appendInt(_ v: Int64, _ out: inout [UInt8]) {
        if v == Int64.min { out.append(contentsOf: String(v).utf8); return }
        var x = v < 0 ? -v : v
        if v < 0 { out.append(UInt8(ascii: "-")) }
        var digits:
            (
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8
            ) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var n = 0
        withUnsafeMutableBytes(of: &digits) { d in
            repeat { d[n] = UInt8(truncatingIfNeeded: x % 10) + 48; x /= 10; n += 1 } while x > 0
            while n > 0 { n -= 1; out.append(d[n]) }
        }
    }
}
