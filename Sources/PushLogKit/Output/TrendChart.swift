import Foundation

/// One inline SVG line chart: a y axis with round-number ticks (1, 2, 2.5 or 5 × 10ⁿ; rates as
/// percentages), dated x labels, gaps where a value is missing, and optional marks: a boundary
/// (the start of this week, with the part after it shaded) and time bands (incident windows).
struct TrendChart {
    var title: String
    /// x labels as the report gives them: `2026-11-02` (days), `2026-W45` (weeks) or anything else.
    var labels: [String]
    var values: [Double?]
    var rate: Bool
    /// Index of the first point after the boundary (nil: none).
    var boundary: Int?
    var boundaryLabel = "this week"
    /// Time bands in epoch ms, drawn when the labels are days.
    var bands: [(from: Int64, until: Int64, title: String)] = []

    init(title: String, labels: [String], values: [Double?], rate: Bool) {
        self.title = title
        self.labels = labels
        self.values = values
        self.rate = rate
    }

    // right: room for half of a centred date label under the last point.
    static let w = 360.0, h = 172.0, left = 50.0, right = 18.0, top = 16.0, bottom = 26.0

    /// Round ticks from 0 to at least `maxValue`, about four steps.
    static func ticks(maxValue: Double, rate: Bool) -> [Double] {
        let top = maxValue > 0 ? maxValue : (rate ? 0.01 : 1)
        let raw = top / 4
        let mag = pow(10, floor(log10(raw)))
        var steps = [1.0, 2, 2.5, 5, 10].map { $0 * mag }
        if !rate { steps = steps.filter { $0 >= 1 && $0.rounded() == $0 } + [1] }  // counts: whole steps
        let step = steps.filter { $0 >= raw }.min() ?? steps.max()!
        let n = Int((top / step).rounded(.up))
        return (0...max(n, 1)).map { Double($0) * step }
    }

    /// A tick's text: percentages with only the digits they need, counts grouped or in k/M.
    static func tickLabel(_ v: Double, rate: Bool) -> String {
        if rate {
            var s = String(format: "%.3f", v * 100)
            while s.hasSuffix("0") { s.removeLast() }
            if s.hasSuffix(".") { s.removeLast() }
            return s + "%"
        }
        if v >= 1_000_000 { return CellFormat.number(v / 1_000_000) + "M" }
        if v >= 10_000 { return CellFormat.number(v / 1000) + "k" }
        return CellFormat.grouped(Int64(v.rounded()))
    }

    /// `2026-11-02` -> `2 Nov`, `2026-W45` -> `W45`; anything else as given.
    static func shortLabel(_ s: String) -> String {
        if s.count == 10, let t = TimeParser.parse(s + "T00:00:00Z") {
            let parts = TimeFormat.day(ms: t).split(separator: "-")
            let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
            if parts.count == 3, let m = Int(parts[1]), let d = Int(parts[2]), (1...12).contains(m) { return "\(d) \(months[m - 1])" }
        }
        if let r = s.range(of: "-W") { return "W" + s[r.upperBound...] }
        return s
    }

    /// Epoch ms of a day label, or nil when the labels are not days.
    static func dayStart(_ s: String) -> Int64? { s.count == 10 ? TimeParser.parse(s + "T00:00:00Z") : nil }

    func svg() -> String {
        let (w, h, left, right, top, bottom) = (
            TrendChart.w, TrendChart.h, TrendChart.left, TrendChart.right, TrendChart.top, TrendChart.bottom
        )
        let n = values.count
        let ticks = TrendChart.ticks(maxValue: values.compactMap { $0 }.max() ?? 0, rate: rate)
        let maxV = ticks.last!
        let dx = n <= 1 ? 0 : (w - left - right) / Double(n - 1)
        func x(_ i: Double) -> Double { n <= 1 ? left + (w - left - right) / 2 : left + i * dx }
        func y(_ v: Double) -> Double { top + (h - top - bottom) * (1 - v / maxV) }
        func f(_ d: Double) -> String { String(format: "%.1f", d) }
        let esc = HTMLRenderer.escape
        var s = "<svg viewBox=\"0 0 \(Int(w)) \(Int(h))\" role=img aria-label=\"\(esc(title))\" data-points=\"\(n)\">"
        // This week shaded, with its boundary.
        if let b = boundary, b > 0, b < n {
            let bx = x(Double(b) - 0.5)
            s +=
                "<rect class=thisweek x=\"\(f(bx))\" y=\"\(f(top))\" width=\"\(f(w - right - bx))\" height=\"\(f(h - top - bottom))\" fill=\"#eef4fd\"/>"
            s +=
                "<line x1=\"\(f(bx))\" x2=\"\(f(bx))\" y1=\"\(f(top - 6))\" y2=\"\(f(h - bottom))\" stroke=\"#7a8ca6\" stroke-dasharray=\"3 3\"/>"
            s += "<text x=\"\(f(bx + 4))\" y=\"\(f(top - 5))\" font-size=\"9\" fill=\"#51627a\">\(esc(boundaryLabel))</text>"
        }
        // Incident windows, at their place within the days (a point is the middle of its day).
        if let d0 = labels.first.flatMap(TrendChart.dayStart), n > 1 {
            for band in bands {
                let a = x(Double(band.from - d0) / 86_400_000 - 0.5), b = x(Double(band.until - d0) / 86_400_000 - 0.5)
                guard b >= left - dx / 2, a <= w - right + dx / 2 else { continue }
                let width = max(3, b - a)
                s +=
                    "<rect class=incident x=\"\(f(a))\" y=\"\(f(top))\" width=\"\(f(width))\" height=\"\(f(h - top - bottom))\" fill=\"#d93025\" fill-opacity=\"0.35\"><title>\(esc(band.title))</title></rect>"
            }
        }
        for v in ticks {
            s += "<line x1=\"\(f(left))\" x2=\"\(f(w - right))\" y1=\"\(f(y(v)))\" y2=\"\(f(y(v)))\" stroke=\"#e5e5ea\"/>"
            s +=
                "<text x=\"\(f(left - 4))\" y=\"\(f(y(v) + 3.5))\" font-size=\"10\" text-anchor=\"end\" fill=\"#666\">\(TrendChart.tickLabel(v, rate: rate))</text>"
        }
        // The line, broken where a value is missing.
        var run: [String] = []
        func flush() {
            if run.count > 1 {
                s += "<polyline fill=\"none\" stroke=\"#0a64d8\" stroke-width=\"2\" points=\"\(run.joined(separator: " "))\"/>"
            }
            run = []
        }
        for (i, v) in values.enumerated() {
            if let v { run.append("\(f(x(Double(i)))),\(f(y(v)))") } else { flush() }
        }
        flush()
        for (i, v) in values.enumerated() {
            guard let v else { continue }
            let text = rate ? CellFormat.percent(v) : CellFormat.human(.double(v), column: "", rate: false)
            s +=
                "<circle cx=\"\(f(x(Double(i))))\" cy=\"\(f(y(v)))\" r=\"2.5\" fill=\"#0a64d8\"><title>\(esc(labels[i])): \(text)</title></circle>"
        }
        // Dated x labels: every point when they fit, else every other one, keeping the boundary's.
        let every = n > 9 ? 2 : 1
        for i in stride(from: (boundary ?? 0) % every, to: n, by: every) {
            s +=
                "<text x=\"\(f(x(Double(i))))\" y=\"\(f(h - 8))\" font-size=\"9.5\" text-anchor=\"middle\" fill=\"#666\">\(esc(TrendChart.shortLabel(labels[i])))</text>"
        }
        return s + "</svg>"
    }

    /// The chart in a captioned figure.
    func figure() -> String {
        "<figure><figcaption>\(HTMLRenderer.escape(title))</figcaption>\(svg())</figure>\n"
    }
}
