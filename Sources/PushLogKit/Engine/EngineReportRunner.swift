import Foundation

/// Runs catalog reports on a `ReportEngine`: the catalog (SQLite's) names the reports, their
/// parameters and how they are shown; the engine's definition supplies the SQL of each section.
/// The post-processing is ReportRunner's: BucketFill, ReportComparison, and the document shape.
public final class EngineReportRunner {
    public let engine: ReportEngine
    let catalog: QueryCatalog

    public init(engine: ReportEngine, catalog: QueryCatalog) {
        self.engine = engine
        self.catalog = catalog
    }

    public func run(name: String, params: ReportParams) throws -> ResultDocument {
        guard let def = catalog.report(name) else { throw CatalogError("no report named '\(name)' (see: pushlog reports)") }
        guard let own = engine.definition(of: name) else {
            throw CatalogError(
                "report \(name) is not available on \(engine.label) (reports there: \(EngineReportRunner.available(engine)))")
        }
        if def.isKPIPage { return try weekly(def, own, params) }
        if let by = params.by, let allowed = own.byValues, !allowed.contains(by) {
            throw CatalogError("report \(name) --by \(by) is not available on \(engine.label) (--by \(allowed.joined(separator: ", ")))")
        }
        let skipBuckets = ReportRunner.bucketsOnlyWithBy(def) && params.by == nil
        let values = bindings(def, own, params)
        // The coverage of what the columns need goes out with the sections, not after them: on a
        // server it is one more round trip and scan, which then adds no wait to the report.
        let wantsNeeds = def.columns.values.contains { !$0.needs.isEmpty }
        let got = SectionsAndNeeds()
        ServerWaits.run(wantsNeeds ? 2 : 1, width: 2) { i in
            if i == 0 {
                got.tables = Result {
                    try engine.sections(of: name, own.sections.filter { !(skipBuckets && $0.name == "by_bucket") }, parameters: values)
                }
            } else {
                got.coverage = Result { try needs(params) }
            }
        }
        var sections = try got.tables!.get().map { def.describe($0) }
        if let unit = TimeUnit(rawValue: params.by ?? def.paramDefaults["by"] ?? ""), def.byValues != nil,
            sections.contains(where: { $0.columns.first == "bucket" }), let (lo, hi) = try engine.dataSpan()
        {
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let from = params.since ?? lo
            let until = params.until ?? (params.since != nil ? max(now, hi + 1) : hi + 1)
            sections = sections.map {
                $0.columns.first == "bucket" ? BucketFill.fill($0, label: "bucket", unit: unit, from: from, until: until) : $0
            }
        }
        var doc = ResultDocument(report: def.name, title: def.title, params: params.shown(for: def), sections: sections)
        if NeedCoverage.matters(doc) { try (got.coverage?.get() ?? needs(params)).apply(to: &doc) }
        return doc
    }

    /// What the two requests of `run` gave: each slot written by one thread, read once both ended.
    private final class SectionsAndNeeds: @unchecked Sendable {
        var tables: Result<[ResultTable], Error>?
        var coverage: Result<NeedCoverage, Error>?
    }

    /// What the records of `p`'s range carry of what figures need, as the engine measures it.
    func needs(_ p: ReportParams) throws -> NeedCoverage {
        let (since, until) = p.bounds
        return try engine.needs(since: since, until: until, topic: p.topic, env: p.env)
    }

    /// Every parameter either definition declares, valued as ReportRunner binds it.
    func bindings(_ def: ReportDefinition, _ own: ReportDefinition, _ given: ReportParams) -> [String: SQLValue] {
        let params = def.withDefaults(given)
        var defaults = def.paramDefaults
        for (k, v) in own.paramDefaults where defaults[k] == nil { defaults[k] = v }
        var out: [String: SQLValue] = [:]
        for name in Set(def.paramNames + own.paramNames) { out[name] = params.value(name, defaults: defaults) }
        if let week = params.week { out["week"] = .text(week) }
        return out
    }

    /// Runs a report on `params`' range and on the same-length range `shift` ms earlier, merged
    /// as ReportRunner.runComparingPrevious merges them.
    public func runComparingPrevious(name: String, params: ReportParams, shift: Int64? = nil) throws -> ResultDocument {
        let def = catalog.report(name)
        return try ReportComparison.runBoth(
            params: params, shift: shift, by: params.by ?? def?.paramDefaults["by"],
            hasRecords: { try engine.hasRecords(since: $0, until: $1, def?.records ?? .any, topic: params.topic, env: params.env) }
        ) { try run(name: name, params: $0) }
    }

    /// The weekly page: the engine's definition computes the KPIs and sections itself; the
    /// document gets KPIPage's title, parameters, notes, filled sections and column meanings.
    func weekly(_ def: ReportDefinition, _ own: ReportDefinition, _ p: ReportParams) throws -> ResultDocument {
        let label = try p.week ?? KPIPage.defaultWeek(latest: engine.latestRecord())
        guard let start = TimeArgument.week(label) else { throw CatalogError("bad --week '\(label)': use an ISO week such as 2026-W47") }
        var q = p
        q.week = label
        let values = bindings(def, own, q)
        var doc = ResultDocument(
            report: def.name, title: def.title, sections: try engine.sections(of: def.name, own.sections, parameters: values))
        if let i = doc.sections.firstIndex(where: { $0.name == KPIPage.tableName }), let x = doc.sections[i].column("this_week"),
            let y = doc.sections[i].column("last_week"), let c = doc.sections[i].column("change")
        {
            // As KPIPage: a whole change of two counts is a count.
            for r in doc.sections[i].rows.indices {
                let row = doc.sections[i].rows[r]
                guard let xv = row[x].asDouble, let yv = row[y].asDouble else { continue }
                let d = xv - yv
                doc.sections[i].rows[r][c] =
                    (d.rounded() == d && row[x].isInteger && row[y].isInteger) ? .int(Int64(d)) : .double((d * 1e6).rounded() / 1e6)
            }
        }
        let span = try engine.dataSpan()
        KPIPage.fill(&doc, def, start: start, span: span)
        (doc.params, doc.title) = KPIPage.heading(def, label: label, start: start, p)
        if let note = KPIPage.filterNote(def, p) { doc.notes.append(note) }
        KPIPage.describe(&doc, def, catalog: catalog)
        let this = ReportParams(since: start, until: start + KPIPage.week, topic: p.topic, env: p.env)
        var last = this
        (last.since, last.until) = (start - KPIPage.week, start)
        KPIPage.applyNeeds(&doc, this: try needs(this), last: try needs(last))
        KPIPage.markPartial(&doc, start: start, span: span)
        return doc
    }

    static func available(_ engine: ReportEngine) -> String {
        (try? QueryCatalog()).map { $0.reports.map(\.name).filter { engine.definition(of: $0) != nil }.joined(separator: ", ") } ?? ""
    }
}
