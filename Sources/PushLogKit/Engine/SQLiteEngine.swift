import Foundation

/// Reports on the SQLite store: a report's text as written, its `:name` parameters bound by name
/// (never spliced), its shared CTEs computed once where several sections aggregate them, and
/// independent runs spread over two read connections of one snapshot (`ReportLanes`).
public final class SQLiteEngine: ReportEngine {
    public let db: Database

    public init(db: Database) { self.db = db }

    public var label: String { "the SQLite database \(db.path)" }

    /// None: every report's one text runs here.
    public func definition(of report: String) -> ReportDefinition? { nil }

    public func sharedText(of report: ReportDefinition) throws -> ReportDefinition { report }

    /// One run whose sections can go on lanes becomes one run per section; several runs (a KPI
    /// page's) go on the lanes as they are. The coverage of needs is one small query here, asked
    /// only when a figure needs it (nil).
    public func run(_ runs: [SectionRun], needs: ReportParams?) throws -> (tables: [[ResultTable]], coverage: NeedCoverage?) {
        if runs.count == 1, let run = runs.first, run.only == nil, SQLiteEngine.runsOnLanes(run.report, params: run.params),
            let other = db.companion
        {
            let jobs: [ReportLanes.Job] = SQLiteEngine.laneSections(run.report, run.params).map { name in
                let one = SectionRun(report: run.report, text: run.text, params: run.params, only: [name])
                return { try SQLiteEngine.tables(one, on: $0) }
            }
            return ([try ReportLanes.run(jobs, on: db, companion: other).flatMap { $0 }], nil)
        }
        let jobs: [ReportLanes.Job] = runs.map { run in { try SQLiteEngine.tables(run, on: $0) } }
        return (try ReportLanes.run(jobs, on: db, companion: runs.count > 1 ? db.companion : nil), nil)
    }

    /// One read transaction, with a second connection on the same state when the report's runs
    /// can use it (`runsOnLanes`).
    public func reading<T>(_ report: ReportDefinition, _ params: ReportParams, _ body: () throws -> T) throws -> T {
        try db.readSnapshot(lanes: SQLiteEngine.runsOnLanes(report, params: params), body)
    }

    public func dataSpan() throws -> (Int64, Int64)? { try DataCoverage(db: db).span() }

    public func latestRecord() throws -> Int64? {
        let newest = try db.prepare(
            "SELECT max(t) FROM (SELECT max(time_ms) AS t FROM sends UNION ALL SELECT max(last_reg) FROM token_facts)")
        return try newest.step() && !newest.isNull(0) ? newest.int(0) : nil
    }

    public func hasRecords(since: Int64, until: Int64, _ evidence: RecordEvidence, topic: String?, env: String?) throws -> Bool {
        try DataCoverage(db: db).hasRecords(since: since, until: until, evidence, topic: topic, env: env)
    }

    public func needs(since: Int64, until: Int64, topic: String?, env: String?) throws -> NeedCoverage {
        try PhaseTimer.measure("needs") { try DataCoverage(db: db).needs(since: since, until: until, topic: topic, env: env) }
    }

    public func coverageNotes(for params: ReportParams, report: ReportDefinition) throws -> [String] {
        try DataCoverage(db: db).notes(for: params, report: report)
    }

    public func tokenMask() throws -> TokenMask { TokenMask(db: db) }

    // MARK: Lanes

    /// Whether a run can use a second connection (`readSnapshot(lanes:)`): a KPI page's runs, or
    /// a report's sections when there are two or more that share no materialized CTE and no name
    /// (a job runs the sections of its name). (Each lane materializing the shared CTEs itself
    /// gained nothing measurable: at 25 M records silent, errors, env-mismatch and hygiene took as
    /// long, the materializing dominates.) Opening the connection costs a few milliseconds, spent
    /// only when this holds.
    public static func runsOnLanes(_ def: ReportDefinition, params: ReportParams) -> Bool {
        if def.isKPIPage { return true }
        let names = laneSections(def, params)
        return names.count >= 2 && Set(names).count == names.count && (def.origin != "built-in" || def.materialize.isEmpty)
    }

    /// The sections a run of the report prints, in order.
    static func laneSections(_ def: ReportDefinition, _ params: ReportParams) -> [String] {
        let skipBuckets = ReportRunner.bucketsOnlyWithBy(def) && params.by == nil
        return def.sections.map(\.name).filter { !(skipBuckets && $0 == "by_bucket") }
    }

    // MARK: Running sections on one connection

    /// The tables of `run`'s sections on `db` (either lane's connection).
    static func tables(_ run: SectionRun, on db: Database) throws -> [ResultTable] {
        let (def, params, only) = (run.text, run.params, run.only)
        let defaults = def.paramDefaults
        var sections: [ResultTable] = []
        let skipBuckets = ReportRunner.bucketsOnlyWithBy(def) && params.by == nil
        let wanted = { (name: String) in (only == nil || only!.contains(name)) && !(skipBuckets && name == "by_bucket") }
        // Several sections that aggregate the same common CTE get it computed once. Built-in
        // reports only: it runs past the read-only guard (a user's SQL never does).
        let printed = Set(def.bodies.map(\.name).filter(wanted))
        let materialized = def.origin == "built-in" && printed.count >= 2 ? def.materialize(for: printed) : []
        defer { if !materialized.isEmpty { dropTemporary(materialized, on: db) } }
        var done = Set<String>()
        for name in materialized {
            try db.withoutReadOnlyGuard {
                try db.exec("DROP TABLE IF EXISTS temp.\(name)")
                let s = try prepare(
                    def, "materialize \(name)", "CREATE TEMP TABLE \(name) AS " + def.materializing(name, after: done), on: db)
                try checkDeclared(s, def)
                try bind(s, params, def.paramDefaults, on: db)
                try PhaseTimer.measure("\(def.name).\(name) (materialized)") { try s.run() }
            }
            done.insert(name)
        }
        for (name, sql) in def.sections(without: done) where wanted(name) {
            let s = try prepare(def, "section \(name)", sql, on: db)
            try checkDeclared(s, def)
            try bind(s, params, defaults, on: db)
            sections.append(try PhaseTimer.measure("\(def.name).\(name)") { try ResultTable.from(s, name: name) })
        }
        return sections
    }

    static func prepare(_ def: ReportDefinition, _ what: String, _ sql: String, on db: Database) throws -> Statement {
        do { return try db.prepare(sql) } catch let e as StoreError where !e.isDamage {
            throw CatalogError("\(def.origin == "built-in" ? def.name + ".sql" : def.origin), \(what): \(e.message)")
        }
    }

    /// A `:name` the report's header does not declare would be bound NULL and quietly change the
    /// figures (`:sinec` for `:since`): refuse it, naming it.
    static func checkDeclared(_ s: Statement, _ def: ReportDefinition) throws {
        for i in 1...max(1, s.parameterCount) where s.parameterCount > 0 {
            guard let pn = s.parameterName(i) else { continue }
            let name = String(pn.dropFirst())
            if !def.declares(name) {
                throw UndeclaredParameter(report: def.name, origin: def.origin, name: name, declared: def.paramNames)
            }
        }
    }

    /// Binds every named parameter of `s` from the report's parameters.
    static func bind(_ s: Statement, _ params: ReportParams, _ defaults: [String: String], on db: Database) throws {
        for i in 1...max(1, s.parameterCount) where s.parameterCount > 0 {
            guard let pn = s.parameterName(i) else { continue }
            if let (param, table) = ReportRunner.dimensionParameters[String(pn.dropFirst())] {
                try bindDimension(s, i, table, params.value(param, defaults: defaults), on: db)
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

    static func dropTemporary(_ names: [String], on db: Database) {
        try? db.withoutReadOnlyGuard { for n in names { try db.exec("DROP TABLE IF EXISTS temp.\(n)") } }
    }

    /// The dimension id of a parameter's text: NULL without the option, -1 for a value never seen
    /// (it matches nothing, as the text did).
    static func bindDimension(_ s: Statement, _ i: Int32, _ table: String, _ value: SQLValue, on db: Database) throws {
        guard case .text(let name) = value else { s.bindNull(i); return }
        let find = try db.prepare("SELECT id FROM \(table) WHERE name = ?1")
        find.bind(1, name)
        s.bind(i, try find.step() ? find.int(0) : -1)
    }
}
