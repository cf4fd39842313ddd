import Foundation

/// A KPI report (weekly.sql, or any report whose header declares `-- kpi:` lines): the KPIs
/// taken from the mission reports run on the week and the week before (so they always agree with
/// those reports), then the report's own sections.
struct WeeklyReport {
    let runner: ReportRunner
    let def: ReportDefinition
    static let week: Int64 = 7 * 86_400_000

    /// The sections the weekly document has, in order (what `pushlog reports` lists): the KPI
    /// table first, weekly.sql's sections but `basics` (which feeds the KPIs), the turn-off trend.
    static func sectionNames(_ def: ReportDefinition) -> [String] {
        ["kpis"] + def.sections.map(\.name).filter { $0 != "basics" } + def.weekSections.map(\.name) + ["trend_turn_off_rate"]
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

    /// The page's parameters and title, whichever engine computed it.
    public static func heading(label: String, start: Int64, _ p: ReportParams) -> ([(String, SQLValue)], String) {
        let params: [(String, SQLValue)] = [
            ("week", .text(label)), ("since", .text(TimeFormat.rfc3339(ms: start))),
            ("until", .text(TimeFormat.rfc3339(ms: start + week))),
            ("budget", .int(p.budget ?? 3)), ("topic", p.topic.map { .text($0) } ?? .null),
            ("env", p.env.map { .text($0) } ?? .null), ("unit", .text(p.unit ?? "device")),
        ]
        let filters = [p.topic.map { "topic \($0)" }, p.env.map { "env \($0)" }].compactMap { $0 }.joined(separator: ", ")
        return (params, "Weekly push health — \(label)" + (filters.isEmpty ? "" : " — only \(filters)"))
    }

    /// The default week: the last ISO week that ended before min(now, latest record + 1 day).
    static func defaultWeek(db: Database, now: Int64 = Int64(Date().timeIntervalSince1970 * 1000)) throws -> String {
        // An empty database: the last complete week by the clock (the page is zeros, and the
        // command says the database holds no records, as every report does).
        let newest = try db.prepare(
            "SELECT max(t) FROM (SELECT max(time_ms) AS t FROM sends UNION ALL SELECT max(last_reg) FROM token_facts)")
        let latest = try newest.step() && !newest.isNull(0) ? newest.int(0) : now
        let ref = min(now, latest + 86_400_000)
        return TimeFormat.isoWeek(ms: TimeFormat.weekStart(ms: ref) - week)
    }

    func run(_ p: ReportParams) throws -> ResultDocument {
        let label = try p.week ?? WeeklyReport.defaultWeek(db: runner.db)
        guard let start = TimeArgument.week(label) else { throw CatalogError("bad --week '\(label)': use an ISO week such as 2026-W47") }
        let this = ReportParams(
            since: start, until: start + WeeklyReport.week, by: "week", topic: p.topic, env: p.env, budget: p.budget, unit: p.unit)
        var last = this
        (last.since, last.until) = (start - WeeklyReport.week, start)
        let lastWeek = last
        let weeklyDef = def
        let filtered = p.topic != nil || p.env != nil

        // Every run the page needs is independent of the others: each mission report once per
        // week (only the sections the KPIs read), the page's own sections, and the turn-off rate
        // of the last eight weeks. ReportLanes runs them on both cores, in one snapshot.
        var jobs: [ReportLanes.Job] = []
        var kpiJobs: [String: Int] = [:]  // report -> index of its this-week job (the week before is next)
        let shownKPIs = weeklyDef.kpis.filter { !(filtered && $0.wholeDataOnly) }  // the others stay empty
        for name in shownKPIs.map(\.report) where kpiJobs[name] == nil {
            guard let def = name == weeklyDef.name ? weeklyDef : runner.catalog.report(name) else {
                throw CatalogError("\(weeklyDef.name): the \(name) report its KPIs read is missing from the catalog")
            }
            let only = Set(shownKPIs.filter { $0.report == name }.map(\.section))
            kpiJobs[name] = jobs.count
            jobs.append { try $0.run(def, params: this, only: only) }
            jobs.append { try $0.run(def, params: lastWeek, only: only) }
        }
        // The page's own sections one job each (basics is among the KPIs' runs), unless they share
        // a materialized CTE (one job, which computes it once) or a name (a user's KPI report).
        let own = weeklyDef.sections.map(\.name).filter { $0 != "basics" }
        let ownGroups = weeklyDef.materialize.isEmpty && Set(own).count == own.count ? own.map { [$0] } : [own]
        let ownFirst = jobs.count
        for group in ownGroups { jobs.append { try $0.run(weeklyDef, params: this, only: Set(group)) } }
        // Sections made of another report's rows over the two weeks: that report once per week.
        let weeksFirst = jobs.count
        for w in weeklyDef.weekSections {
            guard let def = runner.catalog.report(w.report) else {
                throw CatalogError("\(weeklyDef.name): the \(w.report) report its \(w.name) section reads is missing from the catalog")
            }
            jobs.append { try $0.run(def, params: this, only: [w.section]) }
            jobs.append { try $0.run(def, params: lastWeek, only: [w.section]) }
        }
        let trendWeeks = stride(from: 7, through: 0, by: -1).map { start - Int64($0) * WeeklyReport.week }
        let optDef = filtered ? nil : runner.catalog.report("opt-out")
        let trendFirst = jobs.count
        if let optDef {
            for ws in trendWeeks {
                jobs.append {
                    try $0.run(
                        optDef, params: ReportParams(since: ws, until: ws + WeeklyReport.week, unit: p.unit), only: ["turn_off_rate"])
                }
            }
        }
        let docs = try ReportLanes.run(jobs, on: runner, companion: runner.companion())

        var kpi = ResultTable(name: "kpis", columns: ["metric", "this_week", "last_week", "change", "source"])
        for k in weeklyDef.kpis {
            let (name, report, section, column) = (k.name, k.report, k.section, k.column)
            if filtered && k.wholeDataOnly {
                kpi.rows.append([.text(name), .null, .null, .null, .text("\(report).\(column) (not split by topic/env)")])
                continue
            }
            let (a, b) = (docs[kpiJobs[report]!], docs[kpiJobs[report]! + 1])
            let x = a.section(section)?.first(column) ?? .null
            let y = b.section(section)?.first(column) ?? .null
            var change: SQLValue = .null
            if let xv = x.asDouble, let yv = y.asDouble {
                let d = xv - yv
                change = (d.rounded() == d && x.isInteger && y.isInteger) ? .int(Int64(d)) : .double((d * 1e6).rounded() / 1e6)
            }
            kpi.rows.append([.text(name), x, y, change, .text("\(report).\(column)")])
        }
        var doc = ResultDocument(
            report: weeklyDef.name, title: weeklyDef.title, params: this.shown(for: weeklyDef),
            sections: [kpi] + docs[ownFirst..<ownFirst + ownGroups.count].flatMap(\.sections)
                + weeklyDef.weekSections.enumerated().map { i, w in
                    WeeklyReport.twoWeeks(w, this: docs[weeksFirst + 2 * i], last: docs[weeksFirst + 2 * i + 1])
                })
        if let i = doc.sections.firstIndex(where: { $0.name == "trend_daily" }) {
            doc.sections[i] = BucketFill.fill(
                doc.sections[i], label: "day", unit: .day,
                from: start - WeeklyReport.week, until: start + WeeklyReport.week)
        }
        (doc.params, doc.title) = WeeklyReport.heading(label: label, start: start, p)
        if filtered {
            doc.sections.append(ResultTable(name: "trend_turn_off_rate", columns: ["week", "turn_off_rate"]))
            let filters = weeklyDef.kpis.filter(\.wholeDataOnly).map(\.name).joined(separator: ", ")
            doc.notes.append(
                "filtered by \([p.topic.map { "topic=\($0)" }, p.env.map { "env=\($0)" }].compactMap { $0 }.joined(separator: " ")): "
                    + "every section is filtered; \(filters) cannot be split by topic/env and are left empty")
        } else if optDef != nil {
            // The turn-off rate of the last eight weeks, each against the units on at its start.
            var t = ResultTable(name: "trend_turn_off_rate", columns: ["week", "turn_off_rate"])
            for (k, ws) in trendWeeks.enumerated() {
                t.rows.append([
                    .text(TimeFormat.isoWeek(ms: ws)), docs[trendFirst + k].section("turn_off_rate")?.first("turn_off_rate") ?? .null,
                ])
            }
            doc.sections.append(t)
        }
        return doc
    }
}

extension SQLValue {
    var isInteger: Bool { if case .int = self { return true } else { return false } }
}
