import Foundation

/// Runs catalog reports on an engine: the catalog names the reports, their parameters and what
/// their columns mean; the engine runs each report's text (its own version of it, or the one
/// text every engine runs) and answers questions about the data. Everything after the rows is
/// here, once for every engine: empty time buckets filled (`BucketFill`), `--compare`
/// (`ReportComparison`), the needs of the columns (`NeedCoverage`) and KPI pages (`KPIPage`).
public final class ReportRunner {
    public let engine: ReportEngine
    let catalog: QueryCatalog

    public init(engine: ReportEngine, catalog: QueryCatalog) {
        self.engine = engine
        self.catalog = catalog
    }

    /// A runner on the SQLite store.
    public convenience init(db: Database, catalog: QueryCatalog? = nil) throws {
        self.init(engine: SQLiteEngine(db: db), catalog: try catalog ?? QueryCatalog())
    }

    public func run(name: String, params: ReportParams) throws -> ResultDocument {
        guard let def = catalog.report(name) else {
            throw CatalogError("no report named '\(name)' (see: pushlog reports)")
        }
        if def.isKPIPage { return try KPIPage(runner: self, def: def).run(params) }
        let text = try self.text(of: def)
        if let by = params.by, let allowed = text.byValues, !allowed.contains(by), override(of: def) != nil {
            throw CatalogError("report \(name) --by \(by) is not available on \(engine.label) (--by \(allowed.joined(separator: ", ")))")
        }
        let run = SectionRun(report: def, text: text, params: def.withDefaults(params), only: nil)
        // An engine on a server measures the coverage of what the columns need alongside the
        // sections, not after them (one more round trip, which then adds no wait).
        let wantsNeeds = def.columns.values.contains { !$0.needs.isEmpty }
        let (tables, coverage) = try engine.run([run], needs: wantsNeeds ? params : nil)
        var doc = try document(run, tables[0])
        if NeedCoverage.matters(doc) { try (coverage ?? needs(params)).apply(to: &doc) }
        return doc
    }

    /// One run of `def` (only the sections `only` names, when given) on `given` parameters.
    public func run(_ def: ReportDefinition, params given: ReportParams, only: Set<String>? = nil) throws -> ResultDocument {
        try runs([sectionRun(def, given, only: only)])[0]
    }

    /// Runs of reports that do not depend on each other (a KPI page's), at once where the engine can.
    func runs(_ runs: [SectionRun]) throws -> [ResultDocument] {
        let tables = try engine.run(runs, needs: nil).tables
        return try zip(runs, tables).map { try document($0, $1) }
    }

    /// A run of the report as the engine runs it for `def`.
    func sectionRun(_ def: ReportDefinition, _ params: ReportParams, only: Set<String>? = nil) throws -> SectionRun {
        SectionRun(report: def, text: try text(of: def), params: def.withDefaults(params), only: only)
    }

    /// The engine's own version of a built-in report; a user's report is always its own text.
    func override(of def: ReportDefinition) -> ReportDefinition? {
        def.origin == "built-in" ? engine.definition(of: def.name) : nil
    }

    /// The text of `def` the engine runs.
    func text(of def: ReportDefinition) throws -> ReportDefinition {
        try override(of: def) ?? engine.sharedText(of: def)
    }

    /// A run's rows as the report's document: what the columns mean, and the empty time buckets.
    func document(_ run: SectionRun, _ tables: [ResultTable]) throws -> ResultDocument {
        let (def, params) = (run.report, run.params)
        var sections = tables.map { def.describe($0) }
        if let unit = timeUnit(def, params), sections.contains(where: { $0.columns.first == "bucket" }),
            let (lo, hi) = try fillRange(params)
        {
            sections = sections.map {
                $0.columns.first == "bucket" ? BucketFill.fill($0, label: "bucket", unit: unit, from: lo, until: hi) : $0
            }
        }
        return ResultDocument(report: def.name, title: def.title, params: params.shown(for: def), sections: sections)
    }

    /// What the records of `p`'s range carry of what figures need.
    func needs(_ p: ReportParams) throws -> NeedCoverage {
        let (since, until) = p.bounds
        return try engine.needs(since: since, until: until, topic: p.topic, env: p.env)
    }

    /// Parameters every report may use without declaring them (they take no option).
    static let implicitParameters = ["limit"]

    /// Parameters that carry the dimension id of another parameter's text (`:topic_id` for
    /// `--topic`), so a filter compares integers on the SQLite store: NULL without the option, -1
    /// for a value never seen (it matches nothing, as the text did).
    static let dimensionParameters: [String: (param: String, table: String)] = [
        "topic_id": ("topic", "topics"), "env_id": ("env", "envs"),
    ]

    /// The sections a run of the report prints, in order (a KPI page assembles its own).
    public static func sectionNames(_ def: ReportDefinition) -> [String] {
        if def.isKPIPage { return KPIPage.sectionNames(def) }
        return def.sections.map(\.name).filter { !(bucketsOnlyWithBy(def) && $0 == "by_bucket") }
    }

    /// A report whose `by` has no default (env-mismatch, silent) prints by_bucket only with --by.
    static func bucketsOnlyWithBy(_ def: ReportDefinition) -> Bool {
        def.paramNames.contains("by") && def.paramDefaults["by"] == nil
    }

    /// The time unit of `--by` (or the report's default) when the report buckets by time.
    func timeUnit(_ def: ReportDefinition, _ p: ReportParams) -> TimeUnit? {
        guard def.byValues != nil else { return nil }
        return TimeUnit(rawValue: p.by ?? def.paramDefaults["by"] ?? "day")
    }

    /// The range whose buckets are all shown: the user's range; an open end is the data's end
    /// (or now, for a range that has a start, so a trailing outage shows); no range is the data's span.
    func fillRange(_ p: ReportParams, now: Int64 = Int64(Date().timeIntervalSince1970 * 1000)) throws -> (Int64, Int64)? {
        guard let (lo, hi) = try engine.dataSpan() else { return nil }
        let from = p.since ?? lo
        let until = p.until ?? (p.since != nil ? max(now, hi + 1) : hi + 1)
        return (from, until)
    }
}

/// A report's SQL names a parameter its header does not declare.
public struct UndeclaredParameter: Error, CustomStringConvertible {
    public let report, origin, name: String
    public let declared: [String]
    /// The line of the file that uses it, when the catalog found it at load.
    public var line: Int? = nil
    public var description: String {
        "report \(report) (\(origin)\(line.map { ":\($0)" } ?? "")) uses :\(name), which its header does not declare"
            + " (declared: \(declared.isEmpty ? "none" : declared.joined(separator: ", "))); fix the name or add `-- param: \(name)  …`"
    }
}
