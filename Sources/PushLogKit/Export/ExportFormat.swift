/// The row formats `export` writes, as ClickHouse reads them.
public enum ExportFormat: String, CaseIterable, Sendable {
    case jsonEachRow = "JSONEachRow"
    case tsvWithNames = "TSVWithNames"

    /// The file extension of a partition file (before `.gz`).
    var fileExtension: String { self == .jsonEachRow ? "ndjson" : "tsv" }

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

    /// A double as JSON/ClickHouse reads it back exactly (shortest round-trip form).
    static func number(_ d: Double) -> String {
        d.isFinite ? "\(d)" : "null"
    }

    static func appendJSONString<C: Collection<UInt8>>(_ bytes: C, _ out: inout [UInt8]) {
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
