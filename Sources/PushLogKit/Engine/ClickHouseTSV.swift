import Foundation

/// Reads ClickHouse's TabSeparatedWithNamesAndTypes into a result table: names, then types, then
/// rows; `\N` is NULL and `\t`, `\n`, `\\` are escapes. A cell is an integer or a number by its
/// column's type (so `1` in a Float64 column is 1.0, as SQLite's REAL), text otherwise.
enum ClickHouseTSV {
    enum Kind { case integer, number, text, variant }

    static func table(_ name: String, _ body: Data) throws -> ResultTable {
        let text = String(decoding: body, as: UTF8.self)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.last == "" { lines.removeLast() }
        guard lines.count >= 2 else {
            if lines.isEmpty { return ResultTable(name: name, columns: []) }
            throw ClickHouseError(code: nil, "ClickHouse answered without column types: \(lines[0].prefix(200))")
        }
        let columns = fields(lines[0]).map { unescape($0) ?? "" }
        let kinds = fields(lines[1]).map { kind(unescape($0) ?? "") }
        var t = ResultTable(name: name, columns: columns)
        t.rows.reserveCapacity(lines.count - 2)
        for line in lines.dropFirst(2) {
            let cells = fields(line)
            guard cells.count == columns.count else {
                throw ClickHouseError(code: nil, "ClickHouse answered a row of \(cells.count) cells for \(columns.count) columns")
            }
            t.rows.append(zip(cells, kinds).map { value($0, $1) })
        }
        return t
    }

    static func fields(_ line: Substring) -> [Substring] { line.split(separator: "\t", omittingEmptySubsequences: false) }

    /// The kind of a ClickHouse type (`Nullable(Int64)`, `LowCardinality(Nullable(String))`, ...).
    static func kind(_ type: String) -> Kind {
        var t = Substring(type)
        for wrapper in ["LowCardinality(", "Nullable("] where t.hasPrefix(wrapper) { t = t.dropFirst(wrapper.count).dropLast() }
        if t.hasPrefix("Nullable(") { t = t.dropFirst("Nullable(".count).dropLast() }
        if t.hasPrefix("Int") || t.hasPrefix("UInt") || t == "Bool" { return .integer }
        if t.hasPrefix("Variant(") || t == "Dynamic" { return .variant }
        if t.hasPrefix("Float") || t.hasPrefix("Decimal") || t.hasPrefix("BFloat") { return .number }
        return .text
    }

    static func value(_ cell: Substring, _ kind: Kind) -> SQLValue {
        guard let s = unescape(cell) else { return .null }
        switch kind {
        case .integer:
            if let i = Int64(s) { return .int(i) }
            if s == "true" { return .int(1) }
            if s == "false" { return .int(0) }
            return Double(s).map { .double($0) } ?? .text(s)
        case .number:
            switch s {
            case "nan", "-nan": return .double(.nan)
            case "inf", "+inf": return .double(.infinity)
            case "-inf": return .double(-.infinity)
            default: return Double(s).map { .double($0) } ?? .text(s)
            }
        case .text: return .text(s)
        case .variant:
            // A column that holds counts, rates or words (`not observable`): each cell by its text.
            if let i = Int64(s) { return .int(i) }
            return Double(s).map { .double($0) } ?? .text(s)
        }
    }

    /// A cell's text, or nil for `\N`.
    static func unescape(_ cell: Substring) -> String? {
        if cell == "\\N" { return nil }
        // By byte: `contains("\\")` would be Foundation's substring search, by far the slowest
        // part of reading a large answer.
        guard cell.utf8.contains(UInt8(ascii: "\\")) else { return String(cell) }
        var out = ""
        var escaped = false
        for ch in cell {
            if escaped {
                switch ch {
                case "t": out.append("\t")
                case "n": out.append("\n")
                case "r": out.append("\r")
                case "0": out.append("\0")
                case "b": out.append("\u{08}")
                case "f": out.append("\u{0C}")
                case "a": out.append("\u{07}")
                case "v": out.append("\u{0B}")
                default: out.append(ch)
                }
                escaped = false
            } else if ch == "\\" {
                escaped = true
            } else {
                out.append(ch)
            }
        }
        return out
    }
}
