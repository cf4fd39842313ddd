/// Inline SVG line charts for sections named `trend_*` (one x column, numeric series), one
/// TrendChart per series.
enum Charts {
    static func forDocument(_ doc: ResultDocument) -> [String] {
        let figures = trendCharts(doc).map { $0.figure() }
        return figures.isEmpty ? [] : ["<div class=charts>\n"] + figures + ["</div>\n"]
    }

    /// The charts of every non-empty `trend_*` section; a missing value is a gap, not a zero.
    static func trendCharts(_ doc: ResultDocument) -> [TrendChart] {
        var out: [TrendChart] = []
        for t in doc.sections where t.name.hasPrefix("trend") && !t.rows.isEmpty {
            for c in 1..<t.columns.count {
                out.append(
                    TrendChart(
                        title: t.columns[c], labels: t.rows.map { CellFormat.plain($0[0]) },
                        values: t.rows.map { $0[c].asDouble }, rate: t.isRate(t.columns[c])))
            }
        }
        return out
    }
}
