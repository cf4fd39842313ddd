import Foundation

/// Makes empty time buckets visible: every bucket between the range's ends is present, those
/// with no records as a row of zeros (counts 0, rates and text empty), so an outage shows as a
/// run of zeros instead of vanishing from the table and the charts.
enum BucketFill {
    /// More buckets than this are left as they are (a year of minutes would drown the answer).
    static let maxBuckets = 20_000

    /// `table` with a row for each bucket of `unit` in [from, until) that it lacks. Rows whose
    /// label falls outside the generated run stay where they were.
    static func fill(_ table: ResultTable, label column: String, unit: TimeUnit, from: Int64, until: Int64) -> ResultTable {
        guard let li = table.column(column), until > from else { return table }
        let first = unit.start(from)
        guard (until - first) / unit.step < Int64(maxBuckets) else { return table }
        var byLabel: [String: [[SQLValue]]] = [:]
        var order: [String] = []
        for r in table.rows {
            let l = CellFormat.plain(r[li])
            if byLabel[l] == nil { order.append(l) }
            byLabel[l, default: []].append(r)
        }
        var out = table
        out.rows = []
        var placed: Set<String> = []
        let empty = emptyColumns(table)
        var t = first
        while t < until {
            let l = unit.label(t)
            if let rows = byLabel[l] {
                out.rows += rows
            } else {
                out.rows.append(zeroRow(table, labelIndex: li, label: l, empty: empty))
            }
            placed.insert(l)
            t += unit.step
        }
        // Rows outside the run (a range that starts mid-bucket keeps its first bucket, etc.).
        let rest = order.filter { !placed.contains($0) }
        if !rest.isEmpty {
            out.rows =
                rest.filter { $0 < (out.rows.first.map { CellFormat.plain($0[li]) } ?? "") }.flatMap { byLabel[$0]! }
                + out.rows + rest.filter { $0 > (out.rows.last.map { CellFormat.plain($0[li]) } ?? "") }.flatMap { byLabel[$0]! }
        }
        return out
    }

    /// Counts 0; keys, rates (a ratio over nothing), times, other numbers (medians) and text empty.
    static func zeroRow(_ t: ResultTable, labelIndex: Int, label: String, empty: [Bool]) -> [SQLValue] {
        t.columns.indices.map { c in c == labelIndex ? .text(label) : (empty[c] ? .null : .int(0)) }
    }

    /// Which columns a filler row leaves empty, as the header declares them: all but counts
    /// (and columns holding text are never counts).
    static func emptyColumns(_ t: ResultTable) -> [Bool] {
        t.columns.indices.map { c in
            let textual = t.rows.contains { if case .text = $0[c] { return true } else { return false } }
            return textual || t.meaning(t.columns[c]).role != .count
        }
    }
}
