/// A self-contained HTML page: one table per section, charts for sections that ask for them.
enum HTMLRenderer {
    static func render(_ doc: ResultDocument) -> String {
        // The weekly report has a page of its own (labels, coloured changes, marked charts).
        if doc.kpis?.column("metric") != nil { return WeeklyPage.render(doc) }
        var body = "<h1>\(escape(doc.title.isEmpty ? doc.report : doc.title))</h1>\n"
        body += params(doc)
        for chart in Charts.forDocument(doc) { body += chart }
        for t in doc.sections { body += section(t, heading: t.heading ?? t.name) }
        for n in doc.notes { body += "<p class=note>\(escape(n))</p>\n" }
        return page(title: doc.title.isEmpty ? doc.report : doc.title, body: body)
    }

    static func params(_ doc: ResultDocument) -> String {
        let ps = doc.params.filter { $0.1 != .null }.map { "<code>\(escape($0.0))=\(escape(CellFormat.plain($0.1)))</code>" }
        return ps.isEmpty ? "" : "<p class=params>\(ps.joined(separator: " "))</p>\n"
    }

    /// One section as a heading and a table.
    /// `header`: what a column is called on the page (its machine name stays in the tooltip);
    /// `label`: what a key cell reads as, when not its value (which then stays in the tooltip).
    static func section(
        _ t: ResultTable, heading: String, header: (String) -> String = { $0 }, label: (String, String) -> String? = { _, _ in nil }
    ) -> String {
        var body = "<section><h2>\(escape(heading))</h2>\n"
        if t.rows.isEmpty { return body + "<p class=empty>no rows</p></section>\n" }
        body += "<div class=scroll><table><thead><tr>"
        body += t.columns.map { header($0) == $0 ? "<th>\(escape($0))</th>" : "<th title=\"\(escape($0))\">\(escape(header($0)))</th>" }
            .joined()
        body += "</tr></thead><tbody>\n"
        for (ri, r) in t.rows.enumerated() {
            body +=
                "<tr>"
                + r.enumerated().map { i, v in
                    let cls = CellFormat.isNumeric(v) ? " class=num" : ""
                    if case .text(let s) = v, t.meaning(t.columns[i]).role == .key, let shown = label(t.columns[i], s) {
                        return "<td title=\"\(escape(s))\">\(escape(shown))</td>"
                    }
                    return "<td\(cls)>\(escape(CellFormat.human(t, row: ri, column: i)))</td>"
                }.joined() + "</tr>\n"
        }
        return body + "</tbody></table></div></section>\n"
    }

    /// The self-contained page around a body; `style` adds CSS rules.
    static func page(title: String, body: String, style: String = "") -> String {
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escape(title)) — pushlog</title>
            <style>
            body{font:14px/1.45 -apple-system,system-ui,"Segoe UI",Roboto,sans-serif;margin:0 auto;max-width:1100px;padding:16px;color:#1d1d1f;background:#fff}
            h1{font-size:22px;margin:8px 0} h2{font-size:16px;margin:24px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
            .params code{background:#f2f2f5;padding:2px 6px;border-radius:4px;margin-right:6px}
            .scroll{overflow-x:auto} table{border-collapse:collapse;min-width:50%}
            th,td{padding:4px 10px;border-bottom:1px solid #eee;text-align:left;white-space:nowrap}
            th{background:#f7f7f9;font-weight:600} td.num{text-align:right;font-variant-numeric:tabular-nums}
            .charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(320px,1fr));gap:16px}
            figure{margin:0;border:1px solid #e5e5ea;border-radius:8px;padding:8px} figcaption{font-weight:600;margin-bottom:4px}
            svg{width:100%;height:auto} .note{color:#86590d}
            \(style)</style></head><body>
            \(body)</body></html>

            """
    }

    static func escape(_ s: String) -> String {
        var o = ""
        for c in s {
            switch c {
            case "<": o += "&lt;"
            case ">": o += "&gt;"
            case "&": o += "&amp;"
            case "\"": o += "&quot;"
            default: o.append(c)
            }
        }
        return o
    }
}
