import Foundation

/// A KPI page (any report whose header declares `-- kpi:` lines; weekly.sql is one): for an ISO
/// week, the KPIs taken from other reports run on the week and the week before (so they always
/// agree with those reports), then the page's own sections, the `-- weeks:` sections (another
/// report's rows over the two weeks) and the `-- trend:` sections (a figure over the last weeks).
/// Everything page-specific is declared in its header; this runner knows none of it.
struct KPIPage {
    let runner: ReportRunner
    let def: ReportDefinition
    static let week: Int64 = 7 * 86_400_000
    /// The name of the KPI section in every output.
    static let tableName = "kpis"

    /// The sections the page has, in order (what `pushlog reports` lists): the KPI table, the
    /// page's own sections but those its KPIs read, the `-- weeks:` and `-- trend:` sections.
    static func sectionNames(_ def: ReportDefinition) -> [String] {
        [tableName] + ownSections(def) + def.weekSections.map(\.name) + def.trends.map(\.name)
    }

    /// The page's own sections it prints: not those that only feed its KPIs.
    static func ownSections(_ def: ReportDefinition) -> [String] {
        let feeding = Set(def.kpis.filter { $0.report == def.name }.map(\.section))
        return def.sections.map(\.name).filter { !feeding.contains($0) }
    }

    /// A `-- weeks:` section: per key of the source section, the column this week and last, and
    /// the change when both are numbers ('not observable' is text); keys above 0 in either week.
    static func twoWeeks(_ w: ReportDefinition.WeekSection, this: ResultDocument, last: ResultDocument) -> ResultTable {
        var t = ResultTable(name: w.name, columns: [w.key, "this_week", "last_week", "change"])
        guard let now = this.section(w.section), let k = now.column(w.key), let c = now.column(w.column) else { return t }
        let before = last.section(w.section)
        let (bk, bc) = (before?.column(w.key), before?.column(w.column))
        for row in now.rows {
            let x = row[c]
            var y: SQLValue = .null
            if let before, let bk, let bc, let match = before.rows.first(where: { $0[bk] == row[k] }) { y = match[bc] }
            guard (x.asDouble ?? 0) > 0 || (y.asDouble ?? 0) > 0 else { continue }
            var change: SQLValue = .null
            if case .int(let a) = x, case .int(let b) = y { change = .int(a - b) }
            t.rows.append([row[k], x, y, change])
        }
        return t
    }

    /// The page's parameters and title, whichever engine computed it: the declared parameters in
    /// order (the week with its range), and the title with the week and the filters.
    static func heading(_ def: ReportDefinition, label: String, start: Int64, _ p: ReportParams) -> ([(String, SQLValue)], String) {
        var params: [(String, SQLValue)] = []
        for param in def.params {
            if param.name == "week" {
                params += [
                    ("week", .text(label)), ("since", .text(TimeFormat.rfc3339(ms: start))),
                    ("until", .text(TimeFormat.rfc3339(ms: start + week))),
                ]
            } else {
                params.append((param.name, p.value(param.name, defaults: def.paramDefaults)))
            }
        }
        let filters = [p.topic.map { "topic \($0)" }, p.env.map { "env \($0)" }].compactMap { $0 }.joined(separator: ", ")
        return (params, "\(def.title) — \(label)" + (filters.isEmpty ? "" : " — only \(filters)"))
    }

    /// What each KPI means: its source column's declaration (in the report it comes from).
    static func kpiInfo(_ def: ReportDefinition, catalog: QueryCatalog) -> [String: ColumnInfo] {
        var out: [String: ColumnInfo] = [:]
        for k in def.kpis {
            let source = k.report == def.name ? def : catalog.report(k.report)
            out[k.name] = source?.columns[k.column] ?? ColumnInfo.inferred(k.column)
        }
        return out
    }

    /// Gives a page's tables what their columns mean: the KPI table its KPIs', the others the
    /// page's declarations, falling back to the KPIs' and the trends' sources (a daily series of
    /// a KPI reads as the KPI does). Both engines' pages go through this.
    static func describe(_ doc: inout ResultDocument, _ def: ReportDefinition, catalog: QueryCatalog) {
        let kpis = kpiInfo(def, catalog: catalog)
        var page = kpis
        for t in def.trends {
            page[t.column] = catalog.report(t.report)?.columns[t.column]
        }
        page.merge(def.columns) { _, own in own }
        for i in doc.sections.indices {
            let name = doc.sections[i].name
            doc.sections[i].isKPIs = name == tableName
            doc.sections[i].info = name == tableName ? kpis : page
            doc.sections[i].heading = def.headings[name]
            doc.sections[i].marks = def.marks?.section == name ? def.marks?.marks : nil
        }
    }

    /// The declared `-- fill:` sections with a row for every bucket of the two weeks: a bucket
    /// inside the data's span (`span`: its first and last record, nil for none) without records
    /// reads as zeros, one before the data starts or after it ends is a gap (its figures empty):
    /// the logs say nothing of it.
    static func fill(_ doc: inout ResultDocument, _ def: ReportDefinition, start: Int64, span: (Int64, Int64)?) {
        for f in def.fills {
            guard let i = doc.sections.firstIndex(where: { $0.name == f.section }) else { continue }
            var t = BucketFill.fill(doc.sections[i], label: f.column, unit: f.unit, from: start - week, until: start + week)
            if let c = t.column(f.column) {
                let (lo, hi) = span.map { (f.unit.start($0.0), f.unit.start($0.1) + f.unit.step) } ?? (Int64.max, Int64.max)
                let figures = t.columns.indices.filter { $0 != c && t.meaning(t.columns[$0]).role != .key }
                for r in t.rows.indices {
                    guard let b = TimeBucket.start(label: CellFormat.plain(t.rows[r][c]), by: f.unit.rawValue), b < lo || b >= hi else {
                        continue
                    }
                    for k in figures { t.rows[r][k] = .null }
                }
            }
            doc.sections[i] = t
        }
    }

    /// Marks a page whose week runs past the data's end, or whose week before starts before the
    /// data does: a note says to when (or from when) the data goes, and the KPI moves, which then
    /// compare part of a week with another, are not coloured. Days count whole: a week whose last
    /// day has records is whole.
    static func markPartial(_ doc: inout ResultDocument, start: Int64, span: (Int64, Int64)?) {
        guard let (lo, hi) = span, let k = doc.sections.firstIndex(where: \.isKPIs) else { return }
        let day = TimeUnit.day
        var why: [String] = []
        let (first, last) = (TimeFormat.rfc3339(ms: lo), TimeFormat.rfc3339(ms: hi))
        if hi < start {
            why.append("no data this week (the data ends at \(last))")
        } else if day.start(hi) + day.step < start + week {
            why.append("partial week, to \(last) (the data's last record)")
        }
        if lo >= start {
            why.append("no data the week before (the data starts at \(first))")
        } else if day.start(lo) > start - week {
            why.append("the week before is partial, from \(first) (the data's first record)")
        }
        guard !why.isEmpty else { return }
        let text = why.joined(separator: "; ")
        doc.sections[k].partialWeek = text
        doc.notes.append(text + ": the days without data are gaps, and the week-over-week moves are not coloured")
    }

    /// The note under a filtered page: which KPIs stay empty.
    static func filterNote(_ def: ReportDefinition, _ p: ReportParams) -> String? {
        guard p.topic != nil || p.env != nil else { return nil }
        let whole = def.kpis.filter(\.wholeDataOnly).map(\.name).joined(separator: ", ")
        return "filtered by \([p.topic.map { "topic=\($0)" }, p.env.map { "env=\($0)" }].compactMap { $0 }.joined(separator: " ")): "
            + "every section is filtered; \(whole) cannot be split by topic/env and are left empty"
    }

    /// The default week of a SQLite store: the last ISO week that ended before min(now, latest record + 1 day).
    static func defaultWeek(db: Database, now: Int64 = Int64(Date().timeIntervalSince1970 * 1000)) throws -> String {
        defaultWeek(latest: try SQLiteEngine(db: db).latestRecord(), now: now)
    }

    /// The default week for the latest record's time, whichever engine read it. An empty
    /// database: the last complete week by the clock (the page is gaps, and the command says
    /// the database holds no records, as every report does).
    static func defaultWeek(latest: Int64?, now: Int64 = Int64(Date().timeIntervalSince1970 * 1000)) -> String {
        let ref = min(now, (latest ?? now) + 86_400_000)
        return TimeFormat.isoWeek(ms: TimeFormat.weekStart(ms: ref) - week)
    }

    func source(_ name: String, for what: String) throws -> ReportDefinition {
        guard let found = name == def.name ? def : runner.catalog.report(name) else {
            throw CatalogError("\(def.name): the \(name) report its \(what) reads is missing from the catalog")
        }
        return found
    }

    /// The page for `p`'s week, composed from the reports it reads on every engine (an engine's own
    /// version of the page holds only the page's own sections), then finished by `finish`.
    func run(_ p: ReportParams) throws -> ResultDocument {
        let label = try p.week ?? KPIPage.defaultWeek(latest: runner.engine.latestRecord())
        guard let start = TimeArgument.week(label) else { throw CatalogError("bad --week '\(label)': use an ISO week such as 2026-W47") }
        let this = ReportParams(
            since: start, until: start + KPIPage.week, by: "week", topic: p.topic, env: p.env, budget: p.budget, unit: p.unit)
        var last = this
        (last.since, last.until) = (start - KPIPage.week, start)
        let page = def
        let filtered = p.topic != nil || p.env != nil

        // Every run the page needs is independent of the others: each source report once per
        // week (only the sections the KPIs read), the page's own sections, and each trend's
        // weeks. The engine runs them at once where it can (SQLite: on both cores, in one snapshot).
        var runs: [SectionRun] = []
        var kpiRuns: [String: Int] = [:]  // report -> index of its this-week run (the week before is next)
        let shownKPIs = page.kpis.filter { !(filtered && $0.wholeDataOnly) }  // the others stay empty
        for name in shownKPIs.map(\.report) where kpiRuns[name] == nil {
            let source = try source(name, for: "KPIs")
            let only = Set(shownKPIs.filter { $0.report == name }.map(\.section))
            kpiRuns[name] = runs.count
            runs.append(try runner.sectionRun(source, this, only: only))
            runs.append(try runner.sectionRun(source, last, only: only))
        }
        // The page's own sections one run each, unless they share a materialized CTE (one run,
        // which computes it once) or a name (a user's KPI report).
        let own = KPIPage.ownSections(page)
        let ownGroups = page.materialize.isEmpty && Set(own).count == own.count ? own.map { [$0] } : [own]
        let ownFirst = runs.count
        for group in ownGroups { runs.append(try runner.sectionRun(page, this, only: Set(group))) }
        // Sections made of another report's rows over the two weeks: that report once per week.
        let weeksFirst = runs.count
        for w in page.weekSections {
            let source = try source(w.report, for: "\(w.name) section")
            runs.append(try runner.sectionRun(source, this, only: [w.section]))
            runs.append(try runner.sectionRun(source, last, only: [w.section]))
        }
        // Trends: the source report on each of the last weeks, this one included (not under a
        // filter when the figure cannot be split).
        var trendFirst: [Int?] = []
        for t in page.trends {
            guard !(filtered && t.wholeDataOnly) else { trendFirst.append(nil); continue }
            let source = try source(t.report, for: "\(t.name) section")
            trendFirst.append(runs.count)
            for k in stride(from: t.weeks - 1, through: 0, by: -1) {
                var q = p
                (q.since, q.until, q.week, q.by) = (start - Int64(k) * KPIPage.week, start - Int64(k - 1) * KPIPage.week, nil, nil)
                runs.append(try runner.sectionRun(source, q, only: [t.section]))
            }
        }
        let docs = try runner.runs(runs)

        var kpi = ResultTable(name: KPIPage.tableName, columns: ["metric", "this_week", "last_week", "change", "source"])
        for k in page.kpis {
            let (name, report, section, column) = (k.name, k.report, k.section, k.column)
            if filtered && k.wholeDataOnly {
                kpi.rows.append([.text(name), .null, .null, .null, .text("\(report).\(column) (not split by topic/env)")])
                continue
            }
            let (a, b) = (docs[kpiRuns[report]!], docs[kpiRuns[report]! + 1])
            let x = a.section(section)?.first(column) ?? .null
            let y = b.section(section)?.first(column) ?? .null
            kpi.rows.append([.text(name), x, y, KPIPage.change(x, y) ?? .null, .text("\(report).\(column)")])
        }
        var doc = ResultDocument(
            report: page.name, title: page.title, params: this.shown(for: page),
            sections: [kpi] + docs[ownFirst..<ownFirst + ownGroups.count].flatMap(\.sections)
                + page.weekSections.enumerated().map { i, w in
                    KPIPage.twoWeeks(w, this: docs[weeksFirst + 2 * i], last: docs[weeksFirst + 2 * i + 1])
                })
        for (t, first) in zip(page.trends, trendFirst) {
            var table = ResultTable(name: t.name, columns: ["week", t.column])
            if let first {
                for k in 0..<t.weeks {
                    let ws = start - Int64(t.weeks - 1 - k) * KPIPage.week
                    table.rows.append([.text(TimeFormat.isoWeek(ms: ws)), docs[first + k].section(t.section)?.first(t.column) ?? .null])
                }
            }
            doc.sections.append(table)
        }
        try finish(&doc, p, label: label, start: start)
        return doc
    }

    /// What every page gets after its sections, whichever engine computed them: the `-- fill:`
    /// buckets, the heading and parameters, the filter's note, what the columns mean, the needs of
    /// each week's figures, and the partial-week marks.
    func finish(_ doc: inout ResultDocument, _ p: ReportParams, label: String, start: Int64) throws {
        let span = try runner.engine.dataSpan()
        KPIPage.fill(&doc, def, start: start, span: span)
        (doc.params, doc.title) = KPIPage.heading(def, label: label, start: start, p)
        if let note = KPIPage.filterNote(def, p) { doc.notes.append(note) }
        KPIPage.describe(&doc, def, catalog: runner.catalog)
        let this = ReportParams(since: start, until: start + KPIPage.week, topic: p.topic, env: p.env)
        var last = this
        (last.since, last.until) = (start - KPIPage.week, start)
        KPIPage.applyNeeds(&doc, this: try runner.needs(this), last: try runner.needs(last))
        KPIPage.markPartial(&doc, start: start, span: span)
    }

    /// A KPI's move from last week to this: a whole change of two counts is a count, any other
    /// is rounded to 6 decimals; nil when either week has no number.
    static func change(_ x: SQLValue, _ y: SQLValue) -> SQLValue? {
        guard let xv = x.asDouble, let yv = y.asDouble else { return nil }
        let d = xv - yv
        return (d.rounded() == d && x.isInteger && y.isInteger) ? .int(Int64(d)) : .double((d * 1e6).rounded() / 1e6)
    }
}

extension SQLValue {
    var isInteger: Bool { if case .int = self { return true } else { return false } }
}
