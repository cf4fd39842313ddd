/// Aligned text tables: numbers right-aligned, rates as percentages, one block per section.
enum TableRenderer {
    /// `width`: the terminal's columns; text columns are cut (with `…`) until each table fits.
    static func render(_ doc: ResultDocument, width: Int? = nil, color: Bool = false) -> String {
        var out = ""
        if !doc.title.isEmpty {
            out += CellFormat.visible(doc.title) + "\n"
            let ps = doc.params.filter { $0.1 != .null }.map { "\($0.0)=\(CellFormat.plain($0.1))" }
            if !ps.isEmpty { out += CellFormat.visible(ps.joined(separator: "  ")) + "\n" }
            out += "\n"
        }
        for (k, t) in doc.sections.enumerated() {
            if doc.sections.count > 1 || !doc.title.isEmpty { out += "## \(t.name)\n" }
            out += renderTable(t, width: width, color: color)
            if k < doc.sections.count - 1 { out += "\n" }
        }
        for n in doc.notes { out += "\nnote: \(CellFormat.visible(n))" }
        if !doc.notes.isEmpty { out += "\n" }
        return out
    }

    static func renderTable(_ t: ResultTable, width: Int? = nil, color: Bool = false) -> String {
        if t.rows.isEmpty { return "(no rows)\n" }
        let cells = t.rows.indices.map { ri in t.columns.indices.map { CellFormat.human(t, row: ri, column: $0) } }
        var widths = t.columns.map { $0.count }
        var numeric = [Bool](repeating: true, count: t.columns.count)
        for (ri, r) in cells.enumerated() {
            for (c, s) in r.enumerated() {
                widths[c] = min(max(widths[c], s.count), 60)
                if t.rows[ri][c] != .null && !CellFormat.isNumeric(t.rows[ri][c]) { numeric[c] = false }
            }
        }
        if let width {
            // Narrow the widest free-text column, a character at a time, down to 12; times and
            // bucket labels keep their width (a cut time reads as another time).
            let keep = t.columns.map {
                $0 == "time" || $0 == "bucket" || $0.hasSuffix("_seen") || $0.hasPrefix("window_") || $0.hasSuffix("_at")
            }
            while widths.reduce(0, +) + 2 * (widths.count - 1) > width,
                let c = widths.indices.filter({ !numeric[$0] && !keep[$0] && widths[$0] > 12 }).max(by: { widths[$0] < widths[$1] })
            {
                widths[c] -= 1
            }
        }
        func fit(_ s: String, _ c: Int) -> String {
            let w = widths[c]
            let s2 = s.count > w ? String(s.prefix(w - 1)) + "…" : s
            let pad = String(repeating: " ", count: w - s2.count)
            return numeric[c] ? pad + s2 : s2 + pad
        }
        var out = t.columns.enumerated().map { fit($0.element, $0.offset) }.joined(separator: "  ")
        out = trimRight(out) + "\n"
        out += widths.map { String(repeating: "─", count: $0) }.joined(separator: "  ") + "\n"
        for (ri, r) in cells.enumerated() {
            let line = r.enumerated().map { c, text -> String in
                let cell = fit(text, c)
                guard color, let code = changeColor(t, row: ri, column: c) else { return cell }
                return code + cell + "\u{1B}[0m"
            }
            out += trimRight(line.joined(separator: "  ")) + "\n"
        }
        return out
    }

    /// Colour of a change cell: `change` in a KPI table (by its metric), `X_change` columns (by X).
    static func changeColor(_ t: ResultTable, row: Int, column c: Int) -> String? {
        let name = t.columns[c]
        guard let d = t.rows[row][c].asDouble, CellFormat.isNumeric(t.rows[row][c]) else { return nil }
        if name == "change", let m = t.column("metric"), case .text(let metric) = t.rows[row][m] {
            return KPIDirection.ansi(metric, change: d)
        }
        if name.hasSuffix("_change") { return KPIDirection.ansi(String(name.dropLast(7)), change: d) }
        return nil
    }

    static func trimRight(_ s: String) -> String {
        var s = s
        while s.hasSuffix(" ") { s.removeLast() }
        return s
    }
}

/// CSV (RFC 4180) and TSV with a header row; several sections are separated by a blank line
/// and a `# section` line.
enum DelimitedRenderer {
    static func render(_ doc: ResultDocument, separator: String) -> String {
        var out = ""
        for (k, t) in doc.sections.enumerated() {
            if doc.sections.count > 1 {
                if k > 0 { out += "\n" }
                out += "# \(t.name)\n"
            }
            // `\n` line endings: `tok=$(pushlog query …)` must not carry a hidden `\r`.
            out += t.columns.map { quote($0, separator) }.joined(separator: separator) + "\n"
            for r in t.rows {
                out += r.map { quote(CellFormat.plain($0), separator) }.joined(separator: separator) + "\n"
            }
        }
        return out
    }

    static func quote(_ s: String, _ sep: String) -> String {
        if sep == "\t" {
            // TSV escapes as PostgreSQL's text format does: backslash, tab, newline, other controls.
            let b = s.contains("\\") ? s.replacingOccurrences(of: "\\", with: "\\\\") : s
            return CellFormat.visible(b)
        }
        let s = CellFormat.visible(s, keep: ["\n", "\r"])
        if s.contains(",") || s.contains("\"") || s.contains("\n") || s.contains("\r") {
            return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
        return s
    }
}

/// Markdown tables, one per section.
enum MarkdownRenderer {
    /// `width`: the terminal's columns; text columns are cut (with `…`) until each table fits.
    static func render(_ doc: ResultDocument, width: Int? = nil) -> String {
        var out = doc.title.isEmpty ? "" : "# \(CellFormat.visible(doc.title))\n\n"
        let ps = doc.params.filter { $0.1 != .null }.map { "`\($0.0)=\(CellFormat.plain($0.1))`" }
        if !ps.isEmpty { out += CellFormat.visible(ps.joined(separator: " ")) + "\n\n" }
        for t in doc.sections {
            out += "## \(t.name)\n\n"
            if t.rows.isEmpty { out += "_no rows_\n\n"; continue }
            out += "| " + t.columns.joined(separator: " | ") + " |\n"
            out +=
                "|"
                + t.columns.indices.map { i in
                    t.rows.contains { CellFormat.isNumeric($0[i]) } ? "---:|" : "---|"
                }.joined() + "\n"
            for ri in t.rows.indices {
                out +=
                    "| "
                    + t.columns.indices.map {
                        CellFormat.human(t, row: ri, column: $0).replacingOccurrences(of: "|", with: "\\|")
                    }.joined(separator: " | ") + " |\n"
            }
            out += "\n"
        }
        for n in doc.notes { out += "> \(CellFormat.visible(n))\n" }
        return out
    }
}

import Foundation
