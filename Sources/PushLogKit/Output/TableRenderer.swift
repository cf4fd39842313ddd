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
        for n in doc.notes { out += "\n" + wrapped("note: \(CellFormat.visible(n))", width: width) }
        if !doc.notes.isEmpty { out += "\n" }
        return out
    }

    /// `text` with every character outside ASCII replaced by one ASCII character, so columns
    /// stay aligned: rules and dashes by `-`, the cut mark by `~`, anything else by `?`.
    static func ascii(_ text: String) -> String {
        String(
            text.map { (c: Character) -> Character in
                if c.isASCII { return c }
                switch c {
                case "─", "–", "—", "−": return "-"
                case "…": return "~"
                case "→": return ">"
                case "×": return "x"
                case "·": return "."
                default: return "?"
                }
            })
    }

    /// A note broken at spaces into lines of at most `width` (a terminal's), the later ones
    /// indented; a word longer than the width stays whole.
    static func wrapped(_ text: String, width: Int?) -> String {
        guard let width else { return text }
        return wrap(text, width: width, indent: "  ").joined(separator: "\n")
    }

    static func renderTable(_ t: ResultTable, width: Int? = nil, color: Bool = false) -> String {
        if t.rows.isEmpty { return "(no rows)\n" }
        var cells = t.rows.indices.map { ri in t.columns.indices.map { CellFormat.human(t, row: ri, column: $0) } }
        var numeric = [Bool](repeating: true, count: t.columns.count)
        for ri in t.rows.indices {
            for c in t.columns.indices where t.rows[ri][c] != .null && !CellFormat.isNumeric(t.rows[ri][c]) { numeric[c] = false }
        }
        // Times, bucket labels and tokens are never cut (a cut time reads as another time, a cut
        // token as another token); nor is a text column narrower than keeps its values apart.
        let keep = t.columns.indices.map { c in TableFit.isToken(t.columns[c]) || cells.allSatisfy { TableFit.mustStayWhole($0[c]) } }
        func measure() -> [Int] {
            t.columns.indices.map { c in min(cells.reduce(t.columns[c].count) { max($0, $1[c].count) }, keep[c] ? Int.max : 60) }
        }
        var widths = measure()
        // Prose (values with spaces: descriptions, advice) wraps inside its column rather than
        // being cut.
        let prose = t.columns.indices.map { c in !numeric[c] && !keep[c] && cells.contains { $0[c].contains(" ") } }
        var shown = Array(t.columns.indices)
        var dropped: [String] = []
        func total() -> Int { shown.reduce(0) { $0 + widths[$1] } + 2 * (shown.count - 1) }
        if let width, total() > width {
            // 1. Paths shortened to their file name: the folder is the least telling part.
            for c in t.columns.indices where TableFit.isPath(t.columns[c]) {
                for ri in cells.indices { cells[ri][c] = TableFit.fileName(cells[ri][c]) }
            }
            widths = measure()
            // 2. Low-value columns left out (said under the table), before any value is cut.
            for c in TableFit.droppable(t.columns) where total() > width {
                shown.removeAll { $0 == c }
                dropped.append(t.columns[c])
            }
            // 3. Prose narrowed first: it wraps inside its column, so narrowing it costs lines, not
            // words. The width left is shared by the amount of text each holds (down to 16 each),
            // so a long description gets more of it than a short title. Then other free text, a
            // character at a time, down to 12, or to what keeps two values from reading alike
            // (`background_…` for two rules): that is cut.
            let wrapping = shown.filter { prose[$0] }
            if !wrapping.isEmpty {
                let fixed = total() - wrapping.reduce(0) { $0 + widths[$1] }
                let text = wrapping.map { c in cells.reduce(0) { $0 + $1[c].count } }
                widths = TableFit.share(width - fixed, among: wrapping, natural: widths, text: text)
            }
            let narrowest = t.columns.indices.map { c in max(12, TableFit.distinctWidth(cells.map { $0[c] })) }
            while total() > width,
                let c = shown.filter({ !numeric[$0] && !keep[$0] && !prose[$0] && widths[$0] > narrowest[$0] }).max(by: {
                    widths[$0] < widths[$1]
                })
            {
                widths[c] -= 1
            }
            // 4. Still too wide: one row after the other, a line per column (psql's expanded
            // display), every column back, no value cut.
            if total() > width { return expanded(t, cells: cells, width: width) }
        }
        func fit(_ s: String, _ c: Int) -> String {
            let w = widths[c]
            let s2 = s.count > w ? String(s.prefix(w - 1)) + "…" : s
            let pad = String(repeating: " ", count: w - s2.count)
            return numeric[c] ? pad + s2 : s2 + pad
        }
        var out = shown.map { fit(t.columns[$0], $0) }.joined(separator: "  ")
        out = trimRight(out) + "\n"
        out += shown.map { String(repeating: "─", count: widths[$0]) }.joined(separator: "  ") + "\n"
        for (ri, r) in cells.enumerated() {
            // A row is as many lines as its longest wrapped cell.
            let parts = shown.map { c -> [String] in
                prose[c] && r[c].count > widths[c] ? wrap(r[c], width: widths[c]).map { fit($0, c) } : [fit(r[c], c)]
            }
            for k in 0..<(parts.map(\.count).max() ?? 1) {
                let line = shown.indices.map { i -> String in
                    let c = shown[i]
                    guard k < parts[i].count else { return String(repeating: " ", count: widths[c]) }
                    guard k == 0, color, let code = changeColor(t, row: ri, column: c) else { return parts[i][k] }
                    return code + parts[i][k] + "\u{1B}[0m"
                }
                out += trimRight(line.joined(separator: "  ")) + "\n"
            }
        }
        if !dropped.isEmpty {
            out += wrapped("(left out to fit: \(dropped.joined(separator: ", ")); --format tsv shows all)", width: width) + "\n"
        }
        return out
    }

    /// Each row as `column  value` lines under a `-[ row N ]-` rule: what fits any width without
    /// cutting a value.
    static func expanded(_ t: ResultTable, cells: [[String]], width: Int) -> String {
        let nameWidth = t.columns.reduce(0) { max($0, $1.count) }
        let indent = String(repeating: " ", count: nameWidth + 2)
        var out = ""
        for (ri, r) in cells.enumerated() {
            out += "-[ row \(ri + 1) ]" + String(repeating: "-", count: max(0, nameWidth - 6)) + "\n"
            for c in t.columns.indices {
                let lines = wrap(r[c], width: max(20, width - nameWidth - 2))
                out += t.columns[c].padding(toLength: nameWidth, withPad: " ", startingAt: 0) + "  " + lines[0] + "\n"
                for more in lines.dropFirst() { out += indent + more + "\n" }
            }
        }
        return out
    }

    /// Text broken at spaces into lines of at most `width`, each after the first starting with
    /// `indent` (a word longer than that stays whole).
    static func wrap(_ s: String, width: Int, indent: String = "") -> [String] {
        guard s.count > width else { return [s] }
        var lines: [String] = [], line = ""
        for word in s.split(separator: " ", omittingEmptySubsequences: false) {
            if !line.isEmpty && line.count + 1 + word.count > width {
                lines.append(line)
                line = indent + word
            } else {
                line += (line.isEmpty ? "" : " ") + word
            }
        }
        return lines + [line]
    }

    /// Colour of a change cell: `change` in a KPI table (by its metric), `X_change` columns (by X).
    static func changeColor(_ t: ResultTable, row: Int, column c: Int) -> String? {
        let name = t.columns[c]
        guard let d = t.rows[row][c].asDouble, CellFormat.isNumeric(t.rows[row][c]) else { return nil }
        if name == "change", t.isKPIs, t.partialWeek == nil, let m = t.column("metric"), case .text(let metric) = t.rows[row][m] {
            return t.meaning(metric).ansi(change: d)
        }
        if name.hasSuffix("_change") { return t.meaning(String(name.dropLast(7))).ansi(change: d) }
        return nil
    }

    static func trimRight(_ s: String) -> String {
        var s = s
        while s.hasSuffix(" ") { s.removeLast() }
        return s
    }
}

/// What a table may give up to fit a terminal, and what it never cuts.
enum TableFit {
    static func isPath(_ column: String) -> Bool { ["source", "path", "file"].contains(column) }

    /// A column of device tokens, whatever its cells look like (a malformed token is shown as
    /// the app uploaded it).
    static func isToken(_ column: String) -> Bool { column == "token" || column.hasSuffix("_token") }

    /// The narrowest width at which cutting (a prefix and `…`) leaves the different values of a
    /// column different: two values sharing their first n characters need n + 2.
    static func distinctWidth(_ values: [String]) -> Int {
        let sorted = Set(values).sorted()
        var widest = 0
        for (a, b) in zip(sorted, sorted.dropFirst()) {
            let shared = zip(a, b).prefix { $0 == $1 }.count
            widest = max(widest, shared + 2)
        }
        return widest
    }

    /// `/var/log/pusher/sends-2026-11-02.ndjson.gz` → `…/sends-2026-11-02.ndjson.gz`.
    static func fileName(_ s: String) -> String {
        guard let slash = s.lastIndex(of: "/"), slash != s.index(before: s.endIndex) else { return s }
        return "…/" + s[s.index(after: slash)...]
    }

    /// How narrow a wrapped prose column may get.
    static let narrowestProse = 16

    /// `widths` with the columns `among` sharing `room`: each first gets `narrowestProse` (or its
    /// `natural` width when that is less), then what is left in proportion to `text` (the
    /// characters each holds), none over its natural width; what a capped column leaves goes to
    /// the others.
    static func share(_ room: Int, among columns: [Int], natural: [Int], text: [Int]) -> [Int] {
        var widths = natural
        for c in columns { widths[c] = min(natural[c], narrowestProse) }
        var open = columns.indices.filter { widths[columns[$0]] < natural[columns[$0]] }
        var left = room - columns.reduce(0) { $0 + widths[$1] }
        while left > 0, !open.isEmpty {
            let volume = open.reduce(0) { $0 + max(1, text[$1]) }
            let full = open.filter { i in widths[columns[i]] + left * max(1, text[i]) / volume >= natural[columns[i]] }
            if full.isEmpty {
                for i in open { widths[columns[i]] += left * max(1, text[i]) / volume }
                break
            }
            for i in full {
                left -= natural[columns[i]] - widths[columns[i]]
                widths[columns[i]] = natural[columns[i]]
            }
            open.removeAll { full.contains($0) }
        }
        return widths
    }

    /// Columns to leave out, in order, when even short paths do not fit: where a record came from,
    /// then the previous period's figures (its change is shown, and now − change is the previous),
    /// then a row's evidence (an example to trace, and when it was first and last seen), which
    /// `--format tsv` or a narrower question (`--rule`, `trace`) gives whole.
    static func droppable(_ columns: [String]) -> [Int] {
        let from = columns.indices.filter { isPath(columns[$0]) }
        let line = from.isEmpty ? [] : columns.indices.filter { columns[$0] == "line" }
        let previous = columns.indices.filter { columns[$0].hasSuffix("_prev") }
        let example = columns.indices.filter { columns[$0] == "example" || columns[$0].hasPrefix("example_") }
        let seen = columns.indices.filter { columns[$0] == "first_seen" || columns[$0] == "last_seen" }
        return from + line + previous + example + seen
    }

    /// A time, a bucket label or a device token (masked or whole): cut, it would read as another.
    static func mustStayWhole(_ s: String) -> Bool {
        if s.isEmpty || s == "–" { return true }
        let u = Array(s.utf8)
        func digit(_ i: Int) -> Bool { i < u.count && u[i] >= 48 && u[i] <= 57 }
        if u.count >= 7, digit(0), digit(1), digit(2), digit(3), u[4] == UInt8(ascii: "-") { return true }
        let hex = s.filter(\.isHexDigit).count
        return s.count <= 64 && (hex >= 32 && hex == s.count || s.contains("…") && hex >= 12 && hex + 1 == s.count)
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
        // Line breaks too: a raw CR or LF in a log's text would reach a terminal, or split a row for a line-based reader.
        let s = CellFormat.visible(s)
        if s.contains(",") || s.contains("\"") {
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
