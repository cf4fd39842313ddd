/// The output formats of every command (`--format`).
public enum OutputFormat: String, CaseIterable {
    case table, csv, tsv, json, ndjson, markdown, html

    /// The format implied by an output file's extension.
    public static func fromExtension(_ path: String) -> OutputFormat? {
        let ext = path.split(separator: ".").last.map { $0.lowercased() } ?? ""
        switch ext {
        case "csv": return .csv
        case "tsv", "tab": return .tsv
        case "json": return .json
        case "ndjson", "jsonl": return .ndjson
        case "md", "markdown": return .markdown
        case "html", "htm": return .html
        case "txt": return .table
        default: return nil
        }
    }

    /// Whether the format prints a document's notes (CSV, TSV and NDJSON hold rows only: the
    /// command says the notes on stderr).
    public var carriesNotes: Bool { self != .csv && self != .tsv && self != .ndjson }

    /// Renders a document.
    /// `terminalWidth`: the table format fits its text columns to it (a terminal's columns).
    /// `color`: the table format colours changes green or red by whether they are good news.
    /// `ascii`: the table format draws its rules and marks in ASCII, for a terminal whose locale
    /// is not UTF-8 (where `─` would show as `<E2><94><80>`).
    public func render(_ doc: ResultDocument, terminalWidth: Int? = nil, color: Bool = false, ascii: Bool = false) -> String {
        switch self {
        case .table:
            let text = TableRenderer.render(doc, width: terminalWidth, color: color)
            return ascii ? TableRenderer.ascii(text) : text
        case .csv: return DelimitedRenderer.render(doc, separator: ",")
        case .tsv: return DelimitedRenderer.render(doc, separator: "\t")
        case .json: return JSONRenderer.render(doc)
        case .ndjson: return JSONRenderer.renderLines(doc)
        case .markdown: return MarkdownRenderer.render(doc)
        case .html: return HTMLRenderer.render(doc)
        }
    }
}

/// Column-aware value formatting shared by the text renderers.
enum CellFormat {
    /// Plain text of a value for csv/tsv/json-less outputs.
    static func plain(_ v: SQLValue) -> String {
        switch v {
        case .null: return ""
        case .int(let i): return String(i)
        case .double(let d): return number(d)
        case .text(let s): return s
        }
    }

    /// Text from logs made safe for a terminal: control characters (C0, DEL, C1) are shown
    /// escaped (`\x1b`, `\n`), so a rejected line cannot colour the terminal or set its title.
    /// `keep` lists the controls the format carries itself (CSV keeps quoted line breaks).
    static func visible(_ s: String, keep: Set<Unicode.Scalar> = []) -> String {
        guard s.unicodeScalars.contains(where: { isControl($0) && !keep.contains($0) }) else { return s }
        var out = String.UnicodeScalarView()
        for u in s.unicodeScalars {
            guard isControl(u) && !keep.contains(u) else { out.append(u); continue }
            let esc: String
            switch u {
            case "\n": esc = "\\n"
            case "\r": esc = "\\r"
            case "\t": esc = "\\t"
            default:
                let h = String(u.value, radix: 16)
                esc = "\\x" + (h.count < 2 ? "0" + h : h)
            }
            out.append(contentsOf: esc.unicodeScalars)
        }
        return String(out)
    }

    static func isControl(_ u: Unicode.Scalar) -> Bool {
        u.value < 0x20 || (u.value >= 0x7f && u.value < 0xa0)
    }

    static func number(_ d: Double) -> String {
        if d.rounded() == d && abs(d) < 1e15 { return String(Int64(d)) }
        var s = String(format: "%.6f", d)
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return s
    }

    /// Human text for tables and markdown: rates (fractions) as percentages, thousands grouped.
    static func human(_ v: SQLValue, column: String, rate: Bool) -> String {
        switch v {
        case .null: return "–"
        case .int(let i):
            if rate { return percent(Double(i)) }
            // Ids, line numbers and epoch times read better without separators.
            return column.hasSuffix("_id") || column == "line" || column == "id" || abs(i) >= 100_000_000_000 ? String(i) : grouped(i)
        case .double(let d):
            if rate { return percent(d) }
            if d.rounded() == d && abs(d) < 1e15 { return grouped(Int64(d)) }
            return String(format: abs(d) >= 100 ? "%.1f" : "%.2f", d)
        case .text(let s): return visible(s)
        }
    }

    /// A cell in context, as its table's header declares the column: in a KPI table, values of
    /// rate metrics are rates too.
    static func human(_ t: ResultTable, row: Int, column c: Int) -> String {
        let name = t.columns[c]
        let v = t.rows[row][c]
        if t.isKPIs, let m = t.column("metric"), c != m, case .text(let metric) = t.rows[row][m], t.isRate(metric),
            let d = v.asDouble, CellFormat.isNumeric(v)
        {
            return name == "change" ? (d >= 0 ? "+" : "") + percent(d).replacingOccurrences(of: "%", with: " pp") : percent(d)
        }
        if name == "change", let d = v.asDouble, d > 0 { return "+" + human(v, column: name, rate: t.isRate(name)) }
        // --compare previous: COL_prev reads as COL; COL_change is signed, in percentage points for rates.
        if name.hasSuffix("_prev") {
            let base = String(name.dropLast(5))
            return human(v, column: base, rate: t.isRate(base))
        }
        if name.hasSuffix("_change"), let d = v.asDouble {
            let base = String(name.dropLast(7))
            if t.isRate(base) { return (d >= 0 ? "+" : "") + percent(d).replacingOccurrences(of: "%", with: " pp") }
            return (d > 0 ? "+" : "") + human(v, column: base, rate: false)
        }
        return human(v, column: name, rate: t.isRate(name))
    }

    static func percent(_ d: Double) -> String {
        let p = d * 100
        if p == 0 { return "0%" }
        return String(format: abs(p) < 0.1 ? "%.3f%%" : (abs(p) < 10 ? "%.2f%%" : "%.1f%%"), p)
    }

    static func grouped(_ i: Int64) -> String {
        let s = String(abs(i))
        guard s.count > 3 else { return i < 0 ? "-" + s : s }
        var out = ""
        for (k, c) in s.enumerated() {
            if k > 0 && (s.count - k) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return i < 0 ? "-" + out : out
    }

    static func isNumeric(_ v: SQLValue) -> Bool {
        switch v {
        case .int, .double: return true;
        default: return false
        }
    }
}

import Foundation

/// Diagnostics for stderr: text from logs or file names, with control characters escaped.
public enum TerminalText {
    public static func safe(_ s: String) -> String { CellFormat.visible(s, keep: ["\n"]) }
}
