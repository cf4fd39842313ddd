import Foundation

/// Runs catalog reports: binds parameters by name (never spliced into SQL) and collects sections.
public final class ReportRunner {
    let db: Database
    let catalog: QueryCatalog

    public init(db: Database, catalog: QueryCatalog? = nil) throws {
        self.db = db
        self.catalog = try catalog ?? QueryCatalog()
    }

    public func run(name: String, params: ReportParams) throws -> ResultDocument {
        if let def = catalog.report(name), def.isKPIPage { return try KPIPage(runner: self, def: def).run(params) }
        guard let def = catalog.report(name) else {
            throw CatalogError("no report named '\(name)' (see: pushlog reports)")
        }
        var doc = try runOnLanes(def, params: params)
        if NeedCoverage.matters(doc) { try needs(params).apply(to: &doc) }
        return doc
    }

    /// What the records of `p`'s range carry of what figures need (one small query).
    func needs(_ p: ReportParams) throws -> NeedCoverage {
        let (since, until) = p.bounds
        return try PhaseTimer.measure("needs") { try DataCoverage(db: db).needs(since: since, until: until, topic: p.topic, env: p.env) }
    }

    /// Whether `run(name:params:)` can use a second connection (`readSnapshot(lanes:)`): the
    /// weekly page's runs, or a report's sections when there are two or more that share no
    /// materialized CTE and no name (a job runs the sections of its name). (Each lane
    /// materializing the shared CTEs itself gained nothing measurable: at 25 M records silent,
    /// errors, env-mismatch and hygiene took as long, the materializing dominates.) Opening the
    /// connection costs a few milliseconds, spent only when this holds.
    public static func runsOnLanes(_ def: ReportDefinition, params: ReportParams) -> Bool {
        if def.isKPIPage { return true }
        let names = laneSections(def, params)
        return names.count >= 2 && Set(names).count == names.count && (def.origin != "built-in" || def.materialize.isEmpty)
    }

    /// The sections `run` prints, in order.
    static func laneSections(_ def: ReportDefinition, _ params: ReportParams) -> [String] {
        let skipBuckets = ReportRunner.bucketsOnlyWithBy(def) && params.by == nil  // as `run` does
        return def.sections.map(\.name).filter { !(skipBuckets && $0 == "by_bucket") }
    }

    /// The report's sections one job each on both cores (ReportLanes) when `runsOnLanes` and a
    /// companion connection is there; the document is the one `run` gives.
    func runOnLanes(_ def: ReportDefinition, params: ReportParams) throws -> ResultDocument {
        let names = ReportRunner.laneSections(def, params)
        guard ReportRunner.runsOnLanes(def, params: params), let other = try companion() else { return try run(def, params: params) }
        let docs = try ReportLanes.run(names.map { n in { try $0.run(def, params: params, only: [n]) } }, on: self, companion: other)
        var doc = docs[0]
        doc.sections = docs.flatMap(\.sections)
        return doc
    }

    public func run(_ def: ReportDefinition, params given: ReportParams, only: Set<String>? = nil) throws -> ResultDocument {
        let params = def.withDefaults(given)
        let defaults = def.paramDefaults
        var sections: [ResultTable] = []
        let skipBuckets = ReportRunner.bucketsOnlyWithBy(def) && params.by == nil
        let wanted = { (name: String) in (only == nil || only!.contains(name)) && !(skipBuckets && name == "by_bucket") }
        // Several sections that aggregate the same common CTE get it computed once. Built-in
        // reports only: it runs past the read-only guard (a user's SQL never does).
        let materialized = def.origin == "built-in" && def.bodies.filter { wanted($0.name) }.count >= 2 ? def.materialize : []
        defer { if !materialized.isEmpty { dropTemporary(materialized) } }
        var done = Set<String>()
        for name in materialized {
            try db.withoutReadOnlyGuard {
                try db.exec("DROP TABLE IF EXISTS temp.\(name)")
                let s = try prepare(def, "materialize \(name)", def.materializing(name, after: done))
                try checkDeclared(s, def)
                try bind(s, params, def.paramDefaults)
                try PhaseTimer.measure("\(def.name).\(name) (materialized)") { try s.run() }
            }
            done.insert(name)
        }
        for (name, sql) in def.sections(without: done) where wanted(name) {
            let s = try prepare(def, "section \(name)", sql)
            try checkDeclared(s, def)
            try bind(s, params, defaults)
            sections.append(def.describe(try PhaseTimer.measure("\(def.name).\(name)") { try ResultTable.from(s, name: name) }))
        }
        if let unit = timeUnit(def, params), sections.contains(where: { $0.columns.first == "bucket" }),
            let (lo, hi) = try fillRange(params)
        {
            sections = sections.map {
                $0.columns.first == "bucket" ? BucketFill.fill($0, label: "bucket", unit: unit, from: lo, until: hi) : $0
            }
        }
        return ResultDocument(report: def.name, title: def.title, params: params.shown(for: def), sections: sections)
    }

    func prepare(_ def: ReportDefinition, _ what: String, _ sql: String) throws -> Statement {
        do { return try db.prepare(sql) } catch let e as StoreError where !e.isDamage {
            throw CatalogError("\(def.origin == "built-in" ? def.name + ".sql" : def.origin), \(what): \(e.message)")
        }
    }

    /// Binds every named parameter of `s` from the report's parameters.
    /// A `:name` the report's header does not declare would be bound NULL and quietly change the
    /// figures (`:sinec` for `:since`): refuse it, naming it.
    func checkDeclared(_ s: Statement, _ def: ReportDefinition) throws {
        for i in 1...max(1, s.parameterCount) where s.parameterCount > 0 {
            guard let pn = s.parameterName(i) else { continue }
            let name = String(pn.dropFirst())
            if !def.declares(name) {
                throw UndeclaredParameter(report: def.name, origin: def.origin, name: name, declared: def.paramNames)
            }
        }
    }

    /// Parameters every report may use without declaring them (they take no option).
    static let implicitParameters = ["limit"]

    func bind(_ s: Statement, _ params: ReportParams, _ defaults: [String: String]) throws {
        for i in 1...max(1, s.parameterCount) where s.parameterCount > 0 {
            guard let pn = s.parameterName(i) else { continue }
            if let (param, table) = ReportRunner.dimensionParameters[String(pn.dropFirst())] {
                try bindDimension(s, i, table, params.value(param, defaults: defaults))
                continue
            }
            switch params.value(String(pn.dropFirst()), defaults: defaults) {
            case .null: s.bindNull(i)
            case .int(let v): s.bind(i, v)
            case .double(let v): s.bind(i, v)
            case .text(let v): s.bind(i, v)
            }
        }
    }

    func dropTemporary(_ names: [String]) {
        try? db.withoutReadOnlyGuard { for n in names { try db.exec("DROP TABLE IF EXISTS temp.\(n)") } }
    }

    /// Parameters that carry the dimension id of another parameter's text (`:topic_id` for
    /// `--topic`), so a filter compares integers: NULL without the option, -1 for a value never
    /// seen (it matches nothing, as the text did).
    static let dimensionParameters: [String: (param: String, table: String)] = [
        "topic_id": ("topic", "topics"), "env_id": ("env", "envs"),
    ]

    func bindDimension(_ s: Statement, _ i: Int32, _ table: String, _ value: SQLValue) throws {
        guard case .text(let name) = value else { s.bindNull(i); return }
        let find = try db.prepare("SELECT id FROM \(table) WHERE name = ?1")
        find.bind(1, name)
        s.bind(i, try find.step() ? find.int(0) : -1)
    }

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
        guard let (lo, hi) = try DataCoverage(db: db).span() else { return nil }
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
