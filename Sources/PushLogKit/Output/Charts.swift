/// Inline SVG line charts for sections named `trend_*` (one x column, numeric series).
public enum Charts {
    public static func forDocument(_ doc: ResultDocument) -> [String] {
        let trends = doc.sections.filter { $0.name.hasPrefix("trend") && !$0.rows.isEmpty }
        guard !trends.isEmpty else { return [] }
        var out = ["<div class=charts>\n"]
        for t in trends {
            for c in 1..<t.columns.count {
                out.append(lineChart(title: "\(t.columns[c])", labels: t.rows.map { CellFormat.plain($0[0]) },
                                     values: t.rows.map { $0[c].asDouble ?? 0 }, rate: CellFormat.isRate(t.columns[c])))
            }
        }
        out.append("</div>\n")
        return out
    }

    /// A line chart with a y scale and first/last x labels.
    public static func lineChart(title: String, labels: [String], values: [Double], rate: Bool) -> String {
        let w = 360.0, h = 160.0, left = 52.0, bottom = 24.0, top = 10.0, right = 10.0
        let maxV = max(values.max() ?? 0, rate ? 0.0001 : 1)
        let n = values.count
        func x(_ i: Int) -> Double { n <= 1 ? left + (w - left - right) / 2 : left + Double(i) * (w - left - right) / Double(n - 1) }
        func y(_ v: Double) -> Double { top + (h - top - bottom) * (1 - v / maxV) }
        func label(_ v: Double) -> String { rate ? CellFormat.percent(v) : CellFormat.human(.double(v.rounded()), column: "") }
        var pts: [String] = []
        for (i, v) in values.enumerated() { pts.append("\(fmt(x(i))),\(fmt(y(v)))") }
        var svg = "<figure><figcaption>\(HTMLRenderer.escape(title))</figcaption>"
        svg += "<svg viewBox=\"0 0 \(Int(w)) \(Int(h))\" role=img aria-label=\"\(HTMLRenderer.escape(title))\" data-points=\"\(n)\">"
        for k in 0...2 {
            let v = maxV * Double(k) / 2
            svg += "<line x1=\"\(fmt(left))\" x2=\"\(fmt(w - right))\" y1=\"\(fmt(y(v)))\" y2=\"\(fmt(y(v)))\" stroke=\"#e5e5ea\"/>"
            svg += "<text x=\"\(fmt(left - 4))\" y=\"\(fmt(y(v) + 4))\" font-size=\"10\" text-anchor=\"end\" fill=\"#666\">\(label(v))</text>"
        }
        svg += "<polyline fill=\"none\" stroke=\"#0a64d8\" stroke-width=\"2\" points=\"\(pts.joined(separator: " "))\"/>"
        for (i, v) in values.enumerated() {
            svg += "<circle cx=\"\(fmt(x(i)))\" cy=\"\(fmt(y(v)))\" r=\"2.5\" fill=\"#0a64d8\"><title>\(HTMLRenderer.escape(labels[i])): \(label(v))</title></circle>"
        }
        if let f = labels.first { svg += "<text x=\"\(fmt(left))\" y=\"\(fmt(h - 6))\" font-size=\"10\" fill=\"#666\">\(HTMLRenderer.escape(f))</text>" }
        if n > 1, let l = labels.last {
            svg += "<text x=\"\(fmt(w - right))\" y=\"\(fmt(h - 6))\" font-size=\"10\" text-anchor=\"end\" fill=\"#666\">\(HTMLRenderer.escape(l))</text>"
        }
        return svg + "</svg></figure>\n"
    }

    static func fmt(_ d: Double) -> String { String(format: "%.1f", d) }
}

import Foundation
