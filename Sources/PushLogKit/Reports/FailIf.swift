/// `--fail-if 'column op value'`, evaluated on the first row of the summary section
/// (or on the `this_week` value of a KPI for the weekly report).
public struct FailIf {
    public let column: String
    public let op: String
    public let value: Double

    public init?(_ expr: String) {
        let ops = [">=", "<=", "!=", "==", ">", "<", "="]
        for op in ops {
            if let r = expr.range(of: op) {
                let lhs = expr[..<r.lowerBound].trimmingCharacters(in: .whitespaces)
                var rhs = expr[r.upperBound...].trimmingCharacters(in: .whitespaces)
                var scale = 1.0
                if rhs.hasSuffix("%") { rhs.removeLast(); scale = 0.01 }
                guard !lhs.isEmpty, let v = Double(rhs) else { return nil }
                column = lhs
                self.op = op
                value = v * scale
                return
            }
        }
        return nil
    }

    /// The observed value, or nil when the column is not in the document.
    public func observed(in doc: ResultDocument) -> Double? {
        if let kpis = doc.section("kpis"), let m = kpis.column("metric"), let v = kpis.column("this_week") {
            if let row = kpis.rows.first(where: { $0[m] == .text(column) }) { return row[v].asDouble }
        }
        let summary = doc.section("summary") ?? doc.sections.first
        return summary?.first(column)?.asDouble
    }

    public func holds(_ x: Double) -> Bool {
        switch op {
        case ">": return x > value
        case "<": return x < value
        case ">=": return x >= value
        case "<=": return x <= value
        case "!=": return x != value
        default: return x == value
        }
    }
}
