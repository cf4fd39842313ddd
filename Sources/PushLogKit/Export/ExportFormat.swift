import CSQLite

/// The row formats `export` writes, as ClickHouse reads them.
public enum ExportFormat: String, CaseIterable, Sendable {
    case jsonEachRow = "JSONEachRow"
    case tsvWithNames = "TSVWithNames"

    /// The file extension of a partition file (before `.gz`).
    public var fileExtension: String { self == .jsonEachRow ? "ndjson" : "tsv" }

    /// Accepts ClickHouse's names and the short ones (json, ndjson, tsv), case-insensitively.
    public init?(name: String) {
        switch name.lowercased() {
        case "jsoneachrow", "json", "ndjson": self = .jsonEachRow
        case "tsvwithnames", "tsv": self = .tsvWithNames
        default: return nil
        }
    }

    /// The header a TSV file starts with; JSON needs none.
    func header() -> [UInt8] {
        self == .tsvWithNames ? Array((RecordDump.columns.joined(separator: "\t") + "\n").utf8) : []
    }

    /// Appends one row (the statement's current row, columns in `RecordDump.columns` order).
    func append(_ s: Statement, to out: inout [UInt8]) {
        switch self {
        case .jsonEachRow: Self.appendJSON(s, &out)
        case .tsvWithNames: Self.appendTSV(s, &out)
        }
    }

    /// `{"kind":"send","time_ms":...}` — NULL fields are left out (ClickHouse fills NULL).
    static func appendJSON(_ s: Statement, _ out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        var first = true
        for (i, name) in RecordDump.columns.enumerated() {
            let c = Int32(i)
            if s.isNull(c) { continue }
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: name.utf8)
            out.append(contentsOf: "\":".utf8)
            switch sqlite3_column_type(s.handle, c) {
            case SQLITE_INTEGER: out.append(contentsOf: String(s.int(c)).utf8)
            case SQLITE_FLOAT: out.append(contentsOf: number(s.double(c)).utf8)
            default: appendJSONString(s.bytes(c), &out)
            }
        }
        out.append(contentsOf: "}\n".utf8)
    }

    /// Tab-separated; NULL is `\N`; backslash, tab, newline and carriage return escaped as ClickHouse's TSV expects.
    static func appendTSV(_ s: Statement, _ out: inout [UInt8]) {
        for i in RecordDump.columns.indices {
            let c = Int32(i)
            if i > 0 { out.append(UInt8(ascii: "\t")) }
            if s.isNull(c) { out.append(contentsOf: "\\N".utf8); continue }
            switch sqlite3_column_type(s.handle, c) {
            case SQLITE_INTEGER: out.append(contentsOf: String(s.int(c)).utf8)
            case SQLITE_FLOAT: out.append(contentsOf: number(s.double(c)).utf8)
            default:
                for b in s.bytes(c) {
                    switch b {
                    case UInt8(ascii: "\\"): out.append(contentsOf: "\\\\".utf8)
                    case UInt8(ascii: "\t"): out.append(contentsOf: "\\t".utf8)
                    case UInt8(ascii: "\n"): out.append(contentsOf: "\\n".utf8)
                    case UInt8(ascii: "\r"): out.append(contentsOf: "\\r".utf8)
                    default: out.append(b)
                    }
                }
            }
        }
        out.append(UInt8(ascii: "\n"))
    }

    /// A double as JSON/ClickHouse reads it back exactly (shortest round-trip form).
    static func number(_ d: Double) -> String {
        d.isFinite ? "\(d)" : "null"
    }

    static func appendJSONString(_ bytes: UnsafeBufferPointer<UInt8>, _ out: inout [UInt8]) {
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        out.append(UInt8(ascii: "\""))
        for b in bytes {
            switch b {
            case UInt8(ascii: "\""): out.append(contentsOf: "\\\"".utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: "\\\\".utf8)
            case UInt8(ascii: "\n"): out.append(contentsOf: "\\n".utf8)
            case UInt8(ascii: "\r"): out.append(contentsOf: "\\r".utf8)
            case UInt8(ascii: "\t"): out.append(contentsOf: "\\t".utf8)
            case 0..<0x20:
                out.append(contentsOf: "\\u00".utf8)
                out.append(hex[Int(b >> 4)]); out.append(hex[Int(b & 15)])
            default: out.append(b)  // stored text is valid UTF-8 (ingest checks it)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
