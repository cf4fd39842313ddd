import Foundation

/// The Monday page (`report weekly --format html`): a "what changed" paragraph (the largest KPI
/// moves and the incidents), the KPIs under human labels with the change coloured by whether it
/// is good or bad for that KPI (as the reports' headers declare), daily charts with this week and
/// the incidents marked, then the other sections. Rates read as percentages throughout; JSON and CSV keep the machine names.
enum WeeklyPage {
    /// A section's heading: declared (`-- heading:`), else its name as words.
    static func heading(_ t: ResultTable) -> String { t.heading ?? ColumnInfo.words(t.name) }

    /// The opt-out unit the page counts (device unless --unit user).
    static func unit(_ doc: ResultDocument) -> String {
        if case .text(let u)? = doc.params.first(where: { $0.0 == "unit" })?.1 { return u }
        return "device"
    }

    /// A column as a person reads it: `response_share` → `Response share`, `app_version` → `App version`.
    static func columnLabel(_ column: String) -> String { ColumnInfo.words(column) }

    /// A key that is a machine name (`non_retryable_retried`, a hygiene rule) reads as words on
    /// the page, as column names do; values such as reasons, topics, versions and days are shown
    /// as they are.
    static func keyLabel(_ column: String, _ value: String) -> String? {
        guard value.contains("_"), value.allSatisfy({ $0 == "_" || $0.isLowercase || $0.isNumber }) else { return nil }
        return ColumnInfo.words(value)
    }

    static func render(_ doc: ResultDocument) -> String {
        let title = doc.title.isEmpty ? doc.report : doc.title
        var body = "<h1>\(HTMLRenderer.escape(title))</h1>\n" + HTMLRenderer.params(doc)
        body += "<p class=changed><b>What changed.</b> \(whatChanged(doc))</p>\n"
        if let kpis = doc.kpis { body += kpiTable(kpis, unit: unit(doc)) }
        body += charts(doc)
        for t in doc.sections where !t.isKPIs {
            body += HTMLRenderer.section(t, heading: heading(t), header: columnLabel, label: keyLabel)
            if t.marks != nil { body += doc.explained.enumerated().map { explanation($1, number: $0 + 1) }.joined() }
        }
        for n in doc.notes { body += "<p class=note>\(HTMLRenderer.escape(n))</p>\n" }
        return HTMLRenderer.page(title: title, body: body, style: style)
    }

    static let style = """
        .changed{background:#f7f7f9;border-left:4px solid #0a64d8;padding:8px 12px;margin:12px 0 4px;white-space:normal}
        .good{color:#1a7f37} td.good.moved{background:#e6f4ea} .bad{color:#b3261e} td.bad.moved{background:#fce8e6} .flat{color:#555}
        td.change{font-weight:600} td.source{color:#999;font-size:12px} .legend{color:#666;font-size:12px;margin:6px 0 0}
        .legend .swatch{display:inline-block;width:12px;height:10px;vertical-align:-1px;margin:0 4px 0 10px}
        """

    // MARK: - KPIs

    struct Move {
        let metric: String, label: String, this: SQLValue, last: SQLValue, delta: Double, size: Double, rate: Bool, verdict: String
    }

    /// How many moves "what changed" names; the KPI table shades exactly these.
    static let namedMoves = 3

    /// KPIs that moved, largest relative move first (a move from zero counts as the largest):
    /// - a count by at least 10 % and by more than its week-to-week noise (twice the square root of
    ///   the two weeks' sum, as for Poisson counts), so 19 → 12 throttled pushes is not news;
    /// - a rate by at least 0.1 percentage point and 10 % of its smaller side (of the share or of
    ///   its complement), so an acceptance share that falls from 95 % to 94.3 % (its failures rising
    ///   by 13 %) is a move, as a failure share rising from 5 % to 5.7 % is.
    static func moves(_ kpis: ResultTable, unit: String = "device") -> [Move] {
        guard kpis.partialWeek == nil, let m = kpis.column("metric"), let a = kpis.column("this_week"), let b = kpis.column("last_week")
        else { return [] }
        var out: [Move] = []
        for r in kpis.rows {
            guard case .text(let metric) = r[m], let x = r[a].asDouble, let y = r[b].asDouble, x != y else { continue }
            let d = x - y
            let info = kpis.meaning(metric)
            let size: Double
            if info.role == .rate {
                guard abs(d) >= 0.001 else { continue }
                let side = min(abs(y), abs(1 - y))
                size = side == 0 ? Double.infinity : abs(d) / side
            } else {
                guard abs(d) >= 5, abs(d) > 2 * (abs(x) + abs(y)).squareRoot() else { continue }
                size = y == 0 ? Double.infinity : abs(d) / abs(y)
            }
            guard size >= 0.1 else { continue }
            out.append(
                Move(
                    metric: metric, label: info.label(for: metric, unit: unit), this: r[a], last: r[b], delta: d, size: size,
                    rate: info.role == .rate, verdict: info.verdict(d)))
        }
        return out.sorted { ($0.size, abs($0.delta)) > ($1.size, abs($1.delta)) }
    }

    /// A KPI value as the page shows it: rates as percentages.
    static func show(_ v: SQLValue, metric: String, rate: Bool) -> String {
        rate ? (v.asDouble.map(CellFormat.percent) ?? "–") : CellFormat.human(v, column: metric, rate: false)
    }

    static func showChange(_ d: Double, rate: Bool) -> String {
        if rate { return (d >= 0 ? "+" : "−") + CellFormat.percent(abs(d)).replacingOccurrences(of: "%", with: " pp") }
        let whole = d.rounded() == d
        let n = whole ? CellFormat.grouped(Int64(abs(d))) : String(format: "%.2f", abs(d))
        return (d >= 0 ? "+" : "−") + n
    }

    static func whatChanged(_ doc: ResultDocument) -> String {
        var parts: [String] = []
        let top = doc.kpis.map { moves($0, unit: unit(doc)) } ?? []
        if let partial = doc.kpis?.partialWeek {
            parts.append(
                HTMLRenderer.escape(partial.prefix(1).uppercased() + partial.dropFirst()) + ": the moves from last week are not compared.")
        } else if top.isEmpty {
            parts.append("No KPI moved by 10 % or more from last week.")
        } else {
            for mv in top.prefix(namedMoves) {
                let verb = mv.delta > 0 ? "rose" : "fell"
                let why = mv.verdict == "good" ? " (better)" : mv.verdict == "bad" ? " (worse)" : ""
                parts.append(
                    "<span class=\(mv.verdict)><b>\(HTMLRenderer.escape(mv.label))</b> \(verb) from "
                        + "\(show(mv.last, metric: mv.metric, rate: mv.rate)) to \(show(mv.this, metric: mv.metric, rate: mv.rate)) "
                        + "(\(showChange(mv.delta, rate: mv.rate)))\(why).</span>")
            }
        }
        let incidents = incidentWindows(doc)
        if incidents.isEmpty {
            parts.append("No incidents.")
        } else {
            let list = incidents.prefix(3).enumerated().map { i, incident in
                i < doc.explained.count
                    ? "<a href=\"#incident-\(i + 1)\">\(HTMLRenderer.escape(incident.title))</a>" : HTMLRenderer.escape(incident.title)
            }.joined(separator: "; ")
            parts.append(
                "<span class=bad>\(incidents.count) incident\(incidents.count == 1 ? "" : "s"): \(list)\(incidents.count > 3 ? "; …" : "").</span>"
            )
        }
        return parts.joined(separator: " ")
    }

    static func kpiTable(_ kpis: ResultTable, unit: String = "device") -> String {
        guard let m = kpis.column("metric"), let a = kpis.column("this_week"), let b = kpis.column("last_week"),
            let c = kpis.column("change")
        else { return HTMLRenderer.section(kpis, heading: heading(kpis)) }
        let src = kpis.column("source")
        // Every change is coloured by its direction; the moves "what changed" names also get a background.
        let moved = Set(moves(kpis, unit: unit).prefix(namedMoves).map(\.metric))
        var s = "<section><h2>\(HTMLRenderer.escape(heading(kpis)))</h2>\n<div class=scroll><table class=kpis><thead><tr>"
        s += "<th>KPI</th><th>This week</th><th>Last week</th><th>Change</th>" + (src != nil ? "<th>From</th>" : "")
        s += "</tr></thead><tbody>\n"
        for (ri, r) in kpis.rows.enumerated() {
            let metric = CellFormat.plain(r[m])
            let info = kpis.meaning(metric)
            let delta = r[c].asDouble
            let verdict = kpis.partialWeek == nil ? delta.map(info.verdict) ?? "flat" : "flat"
            let arrow = delta.map { $0 > 0 ? "▲ " : $0 < 0 ? "▼ " : "" } ?? ""
            s += "<tr><td title=\"\(HTMLRenderer.escape(metric))\">\(HTMLRenderer.escape(info.label(for: metric, unit: unit)))</td>"
            s += "<td class=num>\(HTMLRenderer.escape(CellFormat.human(kpis, row: ri, column: a)))</td>"
            s += "<td class=num>\(HTMLRenderer.escape(CellFormat.human(kpis, row: ri, column: b)))</td>"
            s +=
                "<td class=\"num change \(verdict)\(moved.contains(metric) ? " moved" : "")\">\(arrow)\(HTMLRenderer.escape(CellFormat.human(kpis, row: ri, column: c)))</td>"
            if let src { s += "<td class=source>\(HTMLRenderer.escape(CellFormat.plain(r[src])))</td>" }
            s += "</tr>\n"
        }
        return s + "</tbody></table></div></section>\n"
    }

    // MARK: - Incidents explained

    /// An incident's section: what `explain` finds over the window around it (what changed,
    /// where, since when), the values that carry the change, the first records to trace, and
    /// the command that tells the rest.
    static func explanation(_ e: IncidentExplanation, number: Int) -> String {
        var s = "<section id=incident-\(number) class=explained><h2>Incident \(number): \(HTMLRenderer.escape(e.title))</h2>\n"
        let summary = e.doc.section("summary")
        func text(_ column: String) -> String? { if case .text(let v)? = summary?.first(column) { v } else { nil } }
        func int(_ column: String) -> Int64 { if case .int(let v)? = summary?.first(column) { v } else { 0 } }
        let metric = text("metric") ?? "errors"
        var told =
            "\(CellFormat.grouped(int("window_count"))) \(metric) from \(clock(e.since)) to \(clock(e.until)) UTC against "
            + "\(CellFormat.grouped(int("baseline_count"))) in the \((e.until - e.since) / 60_000) minutes before."
        if int("baseline_records") == 0 {
            told += " Nothing before it to compare with."
        } else if let headline = text("headline") {
            told += " " + headline.prefix(1).uppercased() + headline.dropFirst()
            if let onset = text("onset").flatMap(TimeParser.parse) { told += ", from \(clock(onset)) UTC" }
            told += "."
        } else {
            told += " No clear change to attribute."
        }
        s += "<p>\(HTMLRenderer.escape(told))</p>\n"
        if text("headline") != nil, let segments = e.doc.section("segments"), !segments.rows.isEmpty {
            let top = segments.projected(["segment", "window_count", "baseline_count", "contribution", "lift"], limit: 5)
            s += HTMLRenderer.section(top, heading: "Where the change is", header: columnLabel)
        }
        if text("headline") != nil, let first = e.doc.section("first_records"), !first.rows.isEmpty {
            let records = first.projected(["time", "source", "line", "reason", "trace"])
            s += HTMLRenderer.section(records, heading: "First records to trace", header: columnLabel)
        }
        let command =
            "pushlog explain --since \(TimeFormat.rfc3339(ms: e.since, fraction: false)) --until "
            + TimeFormat.rfc3339(ms: e.until, fraction: false)
        s += "<p class=legend>The whole account: <code>\(HTMLRenderer.escape(command))</code></p>\n"
        return s + "</section>\n"
    }

    // MARK: - Charts

    /// The declared incidents (`-- marks:`) as time bands with a one-line description: the
    /// window, the first key or text column (what happened) and the counted column.
    static func incidentWindows(_ doc: ResultDocument) -> [(from: Int64, until: Int64, title: String)] {
        guard let t = doc.sections.first(where: { $0.marks != nil }), let marks = t.marks else { return [] }
        let times = t.columns.indices.filter { t.meaning(t.columns[$0]).role == .time }
        guard times.count >= 2 else { return [] }
        let (ws, we) = (times[0], times[1])
        let what = t.columns.indices.first { [.key, .text].contains(t.meaning(t.columns[$0]).role) }
        let counted = marks.count.flatMap(t.column)
        return t.rows.compactMap { r in
            guard let a = TimeParser.parse(CellFormat.plain(r[ws])), let b = TimeParser.parse(CellFormat.plain(r[we])) else { return nil }
            var title = "\(dayName(a)) \(TrendChart.shortLabel(TimeFormat.day(ms: a))) \(clock(a))–\(clock(b)) UTC"
            if let what, case .text(let why) = r[what] { title += ", \(why)" }
            if let counted, let n = r[counted].asDouble {
                title += " (\(CellFormat.grouped(Int64(n))) \(t.columns[counted]) in \((b - a) / 60_000) min)"
            }
            return (a, b, title)
        }
    }

    static func dayName(_ ms: Int64) -> String {
        ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"][Int((TimeFormat.floorDiv(ms, 86_400_000) + 3) % 7)]
    }

    static func clock(_ ms: Int64) -> String { String(TimeFormat.rfc3339(ms: ms, fraction: false).dropFirst(11).prefix(5)) }

    static func charts(_ doc: ResultDocument) -> String {
        var charts = Charts.trendCharts(doc)
        guard !charts.isEmpty else { return "" }
        // This week starts at the report's `since`; the daily trend shows the week before too.
        let weekStart = doc.params.first { $0.0 == "since" }.flatMap { TimeParser.parse(CellFormat.plain($0.1)) }
        let bands = incidentWindows(doc)
        var marked = false
        for i in charts.indices {
            let daily = charts[i].labels.first.flatMap(TrendChart.dayStart) != nil
            charts[i].title =
                doc.meaning(charts[i].title).label(for: charts[i].title, unit: unit(doc)) + (daily ? ", per day" : ", per week")
            if daily, let weekStart {
                charts[i].boundary = charts[i].labels.firstIndex { (TrendChart.dayStart($0) ?? 0) >= weekStart }
                charts[i].bands = bands
                marked = true
            }
        }
        var s = "<section><h2>Trends</h2>\n<div class=charts>\n" + charts.map { $0.figure() }.joined() + "</div>\n"
        if marked {
            s +=
                "<p class=legend>Rates in percent.<span class=swatch style=\"background:#eef4fd;border:1px solid #7a8ca6\"></span>this week"
            if let legend = doc.sections.lazy.compactMap(\.marks).first?.legend {
                s += "<span class=swatch style=\"background:#d93025;opacity:.5\"></span>\(HTMLRenderer.escape(legend))"
            }
            s += "</p>\n"
        }
        return s + "</section>\n"
    }
}
