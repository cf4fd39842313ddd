/// A named section of rows, as reports, queries and listings produce them.
public struct ResultTable {
    public var name: String
    public var columns: [String]
    public var rows: [[SQLValue]]

    public init(name: String, columns: [String], rows: [[SQLValue]] = []) {
        self.name = name
        self.columns = columns
        self.rows = rows
    }

    /// Runs a statement to completion into a table.
    public static func from(_ s: Statement, name: String) throws -> ResultTable {
        var t = ResultTable(name: name, columns: (0..<s.columnCount).map { s.columnName($0) })
        while try s.step() {
            t.rows.append((0..<s.columnCount).map { s.value($0) })
        }
        return t
    }

    public func column(_ name: String) -> Int? { columns.firstIndex(of: name) }

    /// The value of `column` in the first row.
    public func first(_ column: String) -> SQLValue? {
        guard let i = self.column(column), let r = rows.first else { return nil }
        return r[i]
    }
}

/// A whole result: a report name, its parameters and its sections, in order.
public struct ResultDocument {
    public var report: String
    public var title: String
    public var params: [(String, SQLValue)]
    public var sections: [ResultTable]
    /// Lines printed after the tables (warnings, notes).
    public var notes: [String] = []

    public init(report: String, title: String = "", params: [(String, SQLValue)] = [], sections: [ResultTable]) {
        self.report = report
        self.title = title
        self.params = params
        self.sections = sections
    }

    public func section(_ name: String) -> ResultTable? { sections.first { $0.name == name } }
}

/// Masks device tokens in outputs: the first 8 and last 4 characters stay.
public enum TokenMask {
    public static func mask(_ t: String) -> String {
        guard t.count > 12 else { return String(repeating: "*", count: max(t.count, 4)) }
        return String(t.prefix(8)) + "…" + String(t.suffix(4))
    }

    /// Masks every run of 32 or more hex digits in free text (reject lines, messages).
    public static func maskInText(_ s: String) -> String {
        var out = ""
        var run = ""
        func flush() {
            out += run.count >= 32 ? mask(run) : run
            run = ""
        }
        for c in s {
            if c.isHexDigit { run.append(c) } else { flush(); out.append(c) }
        }
        flush()
        return out
    }

    /// Column names whose values are device tokens.
    public static func isTokenColumn(_ name: String) -> Bool {
        let n = name.lowercased()
        return n == "token" || n.hasSuffix("_token") || n == "next_token" || n == "previous_token"
    }

    /// A copy of the document with token columns masked.
    public static func apply(_ doc: ResultDocument) -> ResultDocument {
        var d = doc
        for si in d.sections.indices {
            let cols = d.sections[si].columns
            let idx = cols.indices.filter { isTokenColumn(cols[$0]) }
            // Free-text columns (a rejected line, its reason) can hold tokens too.
            let text = cols.indices.filter { cols[$0] == "text" || cols[$0] == "reason" || cols[$0] == "detail" }
            if idx.isEmpty && text.isEmpty { continue }
            for ri in d.sections[si].rows.indices {
                for c in idx {
                    if case .text(let s) = d.sections[si].rows[ri][c] { d.sections[si].rows[ri][c] = .text(mask(s)) }
                }
                for c in text {
                    if case .text(let s) = d.sections[si].rows[ri][c] { d.sections[si].rows[ri][c] = .text(maskInText(s)) }
                }
            }
        }
        return d
    }
}
