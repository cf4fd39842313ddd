/// The metrics' figures from a ClickHouse server: counts from Queries/clickhouse/metrics.sql (the
/// kept facts), and the rates from the ClickHouse reports' own sections, run through the engine
/// with the parameters the report runner binds, so a gauge and its report agree on each engine.
public struct ClickHouseMetricsSource: MetricsSource {
    let engine: ClickHouseEngine
    let catalog: QueryCatalog
    let statements: ClickHouseStatements

    public init(engine: ClickHouseEngine, catalog: QueryCatalog? = nil) throws {
        self.engine = engine
        self.catalog = try catalog ?? QueryCatalog()
        statements = try ClickHouseStatements(engine.client, command: "metrics")
    }

    func window(_ since: Int64, _ until: Int64) -> [String: SQLValue] { ["since": .int(since), "until": .int(until)] }

    public func responses(since: Int64, until: Int64) throws -> ResultTable { try statements.run("responses", window(since, until)) }

    public func knownPairs() throws -> ResultTable { try statements.run("pairs") }

    public func errors(since: Int64, until: Int64) throws -> ResultTable { try statements.run("errors", window(since, until)) }

    public func categories() throws -> [String] {
        ReasonCategory.allCases.map(\.rawValue).filter { $0 != "accepted" && $0 != "transport" }
    }

    public func rejectedLines() throws -> Int64 {
        guard case .int(let n)? = try statements.run("rejected").rows.first?.first else { return 0 }
        return n
    }

    public func newest() throws -> [(String, Int64)] {
        let t = try statements.run("newest")
        guard let row = t.rows.first else { return [] }
        return MetricsExport.kinds.compactMap { kind in
            guard let i = t.column(kind), case .int(let ms) = row[i] else { return nil }
            return (kind, ms)
        }
    }

    public func reportSection(_ report: String, _ section: String, params: ReportParams) throws -> ResultTable? {
        guard let def = catalog.report(report) else { return nil }
        if let own = engine.definition(of: report), let sql = own.sections.first(where: { $0.name == section })?.sql {
            return def.describe(try engine.section(section, sql: sql, parameters: engine.bindings(def, own, params)))
        }
        // The weekly page on ClickHouse computes its basics per week inside its KPIs; the
        // window's accepted share is metrics.sql's, the same ratio.
        guard report == "weekly", section == "basics" else { return nil }
        return try statements.run("accepted_share", window(params.since ?? Int64.min, params.until ?? Int64.max))
    }

    public func needs(since: Int64, until: Int64) throws -> NeedCoverage {
        try engine.needs(since: since, until: until, topic: nil, env: nil)
    }
}
