/// `--fail-if 'column op value'`, evaluated on each row of the summary section (a summary of
/// one row per reason breaches when any reason does), or on the `this_week` value of a KPI.
public struct FailIf {
    public let column: String
    let op: String
    let value: Double

    init?(_ expr: String) {
        let ops = [">=", "<=", "!=", "==", ">", "<", "="]
        for op in ops {
            if let r = expr.range(of: op) {
                let lhs = expr[..<r.lowerBound].trimmingCharacters(in: .whitespaces)
                var rhs = expr[r.upperBound...].trimmingCharacters(in: .whitespaces)
                var scale = 1.0
                if rhs.hasSuffix("%") { rhs.removeLast(); scale = 0.01 }
                guard !lhs.isEmpty, !lhs.contains(" "), let v = Double(rhs) else { return nil }
                column = lhs
                self.op = op
                value = v * scale
                return
            }
        }
        return nil
    }

    /// The observed value in row `row` of the summary, or nil when the column is not in the
    /// document.
    public func observed(in doc: ResultDocument, row: Int = 0) -> Double? {
        if let kpis = doc.kpis, let m = kpis.column("metric"), let v = kpis.column("this_week") {
            if let row = kpis.rows.first(where: { $0[m] == .text(column) }) { return row[v].asDouble }
        }
        guard let summary = doc.section("summary") ?? doc.sections.first, let c = summary.column(column),
            summary.rows.indices.contains(row)
        else { return nil }
        return summary.rows[row][c].asDouble
    }

    /// Whether `column` names something the condition can be evaluated on (a value may still be
    /// null, e.g. a rate over zero responses).
    public func isKnown(in doc: ResultDocument) -> Bool {
        if let kpis = doc.kpis, let m = kpis.column("metric") {
            return kpis.rows.contains { $0[m] == .text(column) }
        }
        return (doc.section("summary") ?? doc.sections.first)?.column(column) != nil
    }

    /// The names a condition may use in this document.
    public static func names(in doc: ResultDocument) -> [String] {
        if let kpis = doc.kpis, let m = kpis.column("metric") {
            return kpis.rows.compactMap { if case .text(let s) = $0[m] { return s } else { return nil } }
        }
        return (doc.section("summary") ?? doc.sections.first)?.columns ?? []
    }

    func holds(_ x: Double) -> Bool {
        switch op {
        case ">": return x > value
        case "<": return x < value
        case ">=": return x >= value
        case "<=": return x <= value
        case "!=": return x != value
        default: return x == value
        }
    }

    public static func show(_ d: Double) -> String { CellFormat.number(d) }

    var text: String { "\(column) \(op) \(CellFormat.number(value))" }
}

/// One `--fail-if` expression: comparisons joined by `and` / `or` (`and` binds tighter, as in
/// SQL). Several `--fail-if` options breach when any of them holds.
public struct FailCondition {
    /// Alternatives (or) of conjunctions (and).
    let anyOf: [[FailIf]]
    public let source: String

    public init?(_ expr: String) {
        source = expr
        var alternatives: [[FailIf]] = []
        for alt in FailCondition.split(expr, on: "or") {
            var all: [FailIf] = []
            for part in FailCondition.split(alt, on: "and") {
                guard let f = FailIf(part) else { return nil }
                all.append(f)
            }
            alternatives.append(all)
        }
        guard !alternatives.isEmpty else { return nil }
        anyOf = alternatives
    }

    public var comparisons: [FailIf] { anyOf.flatMap { $0 } }

    /// True when the expression holds; a comparison on a null value does not hold.
    public func holds(in doc: ResultDocument) -> Bool { breachingRow(in: doc) != nil }

    /// The first summary row the whole expression holds on (0 for a KPI page).
    public func breachingRow(in doc: ResultDocument) -> Int? {
        let rows = doc.kpis != nil ? 1 : (doc.section("summary") ?? doc.sections.first)?.rows.count ?? 0
        return (0..<rows).first { r in
            anyOf.contains { all in all.allSatisfy { f in f.observed(in: doc, row: r).map(f.holds) ?? false } }
        }
    }

    /// `expr` split on a whole word, case-insensitively.
    static func split(_ expr: String, on word: String) -> [String] {
        var parts: [String] = []
        var current: [Substring] = []
        for w in expr.split(separator: " ", omittingEmptySubsequences: true) {
            if w.lowercased() == word { parts.append(current.joined(separator: " ")); current = [] } else { current.append(w) }
        }
        parts.append(current.joined(separator: " "))
        return parts
    }
}
