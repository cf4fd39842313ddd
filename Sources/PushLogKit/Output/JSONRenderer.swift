/// JSON (`{"report", "params", "sections": {NAME: [rows]}}`) and NDJSON (a row per line with `section`).
enum JSONRenderer {
    static func render(_ doc: ResultDocument) -> String {
        var out = "{\"report\":\(quote(doc.report)),\"params\":{"
        out += doc.params.map { "\(quote($0.0)):\(value($0.1))" }.joined(separator: ",")
        out += "},\"sections\":{"
        out += doc.sections.map { t in
            quote(t.name) + ":[" + t.rows.map { object(t.columns, $0, section: nil) }.joined(separator: ",") + "]"
        }.joined(separator: ",")
        out += "}"
        if !doc.notes.isEmpty { out += ",\"notes\":[" + doc.notes.map(quote).joined(separator: ",") + "]" }
        return out + "}\n"
    }

    static func renderLines(_ doc: ResultDocument) -> String {
        var out = ""
        for t in doc.sections {
            for r in t.rows { out += object(t.columns, r, section: t.name) + "\n" }
        }
        return out
    }

    static func object(_ columns: [String], _ row: [SQLValue], section: String?) -> String {
        var parts: [String] = []
        if let section { parts.append("\"section\":\(quote(section))") }
        for (i, c) in columns.enumerated() { parts.append("\(quote(c)):\(value(row[i]))") }
        return "{" + parts.joined(separator: ",") + "}"
    }

    static func value(_ v: SQLValue) -> String {
        switch v {
        case .null: return "null"
        case .int(let i): return String(i)
        case .double(let d): return d.isFinite ? CellFormat.number(d) : "null"
        case .text(let s): return quote(s)
        }
    }

    static func quote(_ s: String) -> String {
        // Most cells need no escape: no quote, backslash, control byte or DEL, and no 0xC2 (the
        // first byte of a C1 control in UTF-8), as CellFormat.isControl has them.
        if !s.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F || $0 == 0xC2 }) { return "\"" + s + "\"" }
        var out = "\""
        out.reserveCapacity(s.utf8.count + 2)
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                // C1 controls too (U+009B is a CSI on some terminals); JSON allows \u escapes anywhere.
                if CellFormat.isControl(u) {
                    let h = String(u.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out + "\""
    }
}
